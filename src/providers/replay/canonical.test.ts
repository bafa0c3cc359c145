import { readdirSync } from "node:fs";
import type { Message, ModelRequest } from "glassloop";
import { ReplayDivergenceError, ReplayModel } from "glassloop/trace";
import { describe, expect, it } from "vitest";
import { CAPTURES_DIR } from "../../../test/helpers/anthropic-captures.js";
import { loadCassette } from "../../../test/helpers/cassettes.js";
import { toConverseBody } from "../bedrock/request.js";
import { toGeminiBody } from "../google/request.js";
import { readGeminiBody } from "../google/request-reader.js";
import { toResponsesBody } from "../openai-responses/request.js";
import { readResponsesBody } from "../openai-responses/request-reader.js";
import type { RecordedExchange } from "../replay.js";
import { canonicalFromBody, canonicalFromRequest, wireFormatOf } from "./canonical.js";
import type { CanonicalRequest } from "./canonical-request.js";

const TASK = "Add 200 and 10, then multiply the result by 2.";
const numbers = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
  additionalProperties: false,
};
const transcript: Message[] = [
  { role: "user", content: TASK },
  {
    role: "assistant",
    content: "",
    toolCalls: [{ id: "call_1", name: "add", arguments: '{"a":200,"b":10}' }],
  },
  { role: "tool", toolCallId: "call_1", toolName: "add", content: "210" },
  {
    role: "assistant",
    content: "Next.",
    toolCalls: [{ id: "call_2", name: "multiply", arguments: '{"a":210,"b":2}' }],
  },
  { role: "tool", toolCallId: "call_2", toolName: "multiply", content: "boom", isError: true },
  { role: "user", content: "Please answer in words." },
];
const request: ModelRequest = {
  instructions: "Perform arithmetic with the tools.",
  messages: transcript,
  tools: [
    { name: "add", description: "Adds two numbers.", parameters: numbers },
    { name: "multiply", description: "Multiplies two numbers.", parameters: numbers },
  ],
  toolChoice: { name: "add" },
  maxOutputTokens: 1024,
  temperature: 0.1,
  stream: true,
  signal: new AbortController().signal,
};
/** The request as glassloop's own normalized body reads: what every format must mean too. */
const meaning = canonicalFromRequest(request);
const withoutParameters = (c: CanonicalRequest) => ({
  ...c,
  tools: c.tools.map(({ name, description }) => ({ name, description })),
});

describe("each provider reads its own request bodies", () => {
  it("a Gemini body means the same as the request it was made from (its schema dialect aside)", () => {
    const body = toGeminiBody(request, { placeholderSignatures: true, thinking: { includeThoughts: true } });
    const read = canonicalFromBody(body, "google:gemini-3-pro-preview");
    expect(wireFormatOf(body as unknown as Record<string, unknown>, "google:gemini-3-pro-preview")).toBe(
      "gemini",
    );
    expect(withoutParameters(read)).toEqual(withoutParameters(meaning));
    expect(read).toEqual(canonicalFromRequest(request, "gemini"));
  });

  it("a Responses body means the same as the request it was made from", () => {
    const body = toResponsesBody(request, { model: "gpt-5", store: false, reasoning: { effort: "low" } });
    expect(wireFormatOf(body as unknown as Record<string, unknown>, "openai-responses:gpt-5")).toBe(
      "responses",
    );
    expect(canonicalFromBody(body, "openai-responses:gpt-5")).toEqual(meaning);
    expect(canonicalFromRequest(request, "responses")).toEqual(meaning);
  });

  it("a Converse body means the same as the request it was made from (cache points and all)", () => {
    const body = toConverseBody(request, { cache: true }, "bedrock");
    const model = "bedrock:anthropic.claude-3-5-sonnet-20240620-v1:0";
    expect(wireFormatOf(body, model)).toBe("bedrock");
    // Its shape alone tells it apart from Anthropic's Messages (both have `system`).
    expect(wireFormatOf(body, "recorded:unknown")).toBe("bedrock");
    expect(canonicalFromBody(body, model)).toEqual(meaning);
    expect(canonicalFromRequest(request, "bedrock")).toEqual(meaning);
  });

  it("reads a Converse body's tool choice in its own terms: none asked for is none read", () => {
    const auto = toConverseBody({ ...request, toolChoice: "auto" }, {}, "bedrock");
    expect(canonicalFromBody(auto, "bedrock:m").toolChoice).toBeUndefined();
    const required = toConverseBody({ ...request, toolChoice: "required" }, {}, "bedrock");
    expect(canonicalFromBody(required, "bedrock:m").toolChoice).toBe("required");
    // The request is written as Converse would send it before it is compared, so "auto" matches.
    expect(canonicalFromRequest({ ...request, toolChoice: "auto" }, "bedrock")).toEqual(
      canonicalFromBody(auto, "bedrock:m"),
    );
  });

  it("reads pydantic-ai's recorded Gemini tool run: the call and its `return_value` response pair up", () => {
    const [, second] = loadCassette("test_google-test_google_tool_output");
    const read = readGeminiBody(second?.request.parsed_body ?? {});
    expect(read.messages).toEqual([
      { role: "user", content: ["What is the largest city in the user country?"] },
      { role: "assistant", content: "", toolCalls: [{ id: "#1", name: "get_user_country", arguments: {} }] },
      { role: "tool", toolCallId: "#1", content: "Mexico" },
    ]);
    expect(read.tools.map((t) => t.name)).toEqual(["get_user_country", "final_result"]);
    expect(read.toolChoice).toBe("required");
  });

  it("reads pydantic-ai's recorded Responses tool run: an empty assistant message and its call are one answer", () => {
    const [, second] = loadCassette("test_openai_responses-test_tool_output");
    const read = readResponsesBody(second?.request.parsed_body ?? {});
    expect(read.messages).toEqual([
      { role: "user", content: ["What is the largest city in the user country?"] },
      { role: "assistant", content: "", toolCalls: [{ id: "#1", name: "get_user_country", arguments: {} }] },
      { role: "tool", toolCallId: "#1", content: "Mexico" },
    ]);
    expect(read.toolChoice).toBe("required");
  });

  // Every recorded request of every Gemini and Responses capture: what it asks survives glassloop
  // writing it again, so a replay of such a recording compares what the agent means, not bytes.
  const captures = readdirSync(`${CAPTURES_DIR}pydantic-ai`)
    .filter((f) => /^test_(google|openai_responses)-.*\.yaml$/.test(f))
    .map((f) => f.replace(/\.yaml$/, ""))
    .filter((name) => loadCassette(name).some(isModelCall));
  it.each(captures)("%s: every recorded body reads back the same through glassloop's own writer", (name) => {
    const gemini = name.startsWith("test_google");
    const bodies = loadCassette(name)
      .filter(isModelCall)
      .map((e) => e.request.parsed_body);
    expect(bodies.length).toBeGreaterThan(0);
    for (const body of bodies) {
      const read = canonicalFromBody(body, gemini ? "google:gemini-2.5-flash" : "openai-responses:gpt-4o");
      expect(read.messages.length).toBeGreaterThan(0);
      // Every result answers a call made before it.
      const calls = new Set<string>();
      for (const m of read.messages) {
        if (m.role === "assistant") for (const c of m.toolCalls ?? []) calls.add(c.id);
        if (m.role === "tool") expect(calls.has(m.toolCallId)).toBe(true);
      }
      const again = requestOf(read);
      const written = gemini ? toGeminiBody(again) : toResponsesBody(again, { model: "m", store: false });
      const reread = canonicalFromBody(written, gemini ? "google:m" : "openai-responses:m");
      expect(withoutParameters(reread)).toEqual(withoutParameters(read));
    }
  });
});

/** A model call, not a token count (`:countTokens`), which some cassettes also hold. */
function isModelCall(exchange: { request: { uri: string } }): boolean {
  return !exchange.request.uri.includes(":countTokens");
}

describe("replays of Gemini, Responses and Converse recordings", () => {
  const answer = {
    text: "Four hundred and twenty.",
    toolCalls: [],
    usage: { inputTokens: 10, outputTokens: 5 },
    finishReason: "stop" as const,
  };
  const recording = (model: string, body: unknown): RecordedExchange[] => [
    { runId: "r1", step: 3, model, body, deltas: [], response: answer },
  ];
  const observer = { onRequest() {}, onDelta() {}, onRetry() {} };
  const formats = [
    ["google:gemini-2.5-flash", toGeminiBody(request)],
    ["openai-responses:gpt-5", toResponsesBody(request, { model: "gpt-5", store: false })],
    ["bedrock:anthropic.claude-3-5-haiku-20241022-v1:0", toConverseBody(request, {}, "bedrock")],
  ] as const;

  it.each(formats)("%s: the same request replays the recorded answer", async (model, body) => {
    const replay = new ReplayModel(recording(model, body));
    await expect(replay.generate(request, observer)).resolves.toMatchObject({ text: answer.text });
  });

  it.each(formats)("%s: a changed tool result stops the replay at that message", async (model, body) => {
    const replay = new ReplayModel(recording(model, body));
    const changed = transcript.map((m) =>
      m.role === "tool" && m.content === "210" ? { ...m, content: "211" } : m,
    );
    const error = await replay.generate({ ...request, messages: changed }, observer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReplayDivergenceError);
    expect(error).toMatchObject({ path: "messages[2].content", recorded: "210", actual: "211" });
  });
});

/** A glassloop request that asks what `read` says (tool results named after their calls, any schema). */
function requestOf(read: CanonicalRequest): ModelRequest {
  const names = new Map<string, string>();
  const messages: Message[] = [];
  for (const m of read.messages) {
    if (m.role === "user") for (const content of m.content) messages.push({ role: "user", content });
    else if (m.role === "tool")
      messages.push({
        role: "tool",
        toolCallId: m.toolCallId,
        toolName: names.get(m.toolCallId) ?? "",
        content: m.content,
      });
    else {
      const toolCalls = (m.toolCalls ?? []).map((c) => {
        names.set(c.id, c.name);
        return { id: c.id, name: c.name, arguments: JSON.stringify(c.arguments) };
      });
      messages.push(
        toolCalls.length
          ? { role: "assistant", content: m.content, toolCalls }
          : { role: "assistant", content: m.content },
      );
    }
  }
  return {
    ...(read.instructions !== undefined && { instructions: read.instructions }),
    messages,
    // The recorded schemas may be in a provider's own dialect; the comparison leaves them out.
    tools: read.tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: { type: "object" },
    })),
    ...(read.toolChoice !== undefined && { toolChoice: read.toolChoice }),
    ...(read.maxOutputTokens !== undefined && { maxOutputTokens: read.maxOutputTokens }),
    ...(read.temperature !== undefined && { temperature: read.temperature }),
    signal: new AbortController().signal,
  };
}
