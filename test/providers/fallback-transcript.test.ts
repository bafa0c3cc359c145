/**
 * One conversation across three APIs through a fallback chain: Claude (extended thinking) calls a
 * tool, then is overloaded, and OpenAI's Responses API (reasoning, encrypted) takes the next step;
 * when both fail, Gemini 3 answers; then Claude answers again. Every answer is a real recording
 * (pydantic-ai cassettes: Anthropic thinking, Responses reasoning, Gemini 3 with a thought
 * signature; the Gemini stream aggregated into its non-streamed body), and every request is
 * checked against what its API documents and the recordings show:
 * - Responses gets no Anthropic thinking, only the calls and their results;
 * - Gemini 3 gets Google's documented placeholder `thoughtSignature` on the first function call of
 *   each turn another model made, and no foreign reasoning;
 * - Claude gets its own thinking block back byte for byte, no foreign reasoning, and, because the
 *   turn it answers was made by Gemini (no thinking block to open it), no `thinking` parameter,
 *   as Anthropic's API requires.
 */
import { readFileSync } from "node:fs";
import { Agent, type AgentEvent, tool } from "glassloop";
import {
  AnthropicModel,
  CircuitBreakers,
  fallback,
  GeminiModel,
  OpenAIResponsesModel,
} from "glassloop/models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { CAPTURES_DIR } from "../helpers/anthropic-captures.js";

// Google's documented value for a function call that carries no signature of Gemini's own.
const GEMINI_PLACEHOLDER_SIGNATURE = "skip_thought_signature_validator";

import {
  type RecordedRequest,
  startWireServer,
  type WireReply,
  type WireServer,
} from "../helpers/wire-server.js";

interface Exchange {
  request: { parsed_body: Record<string, unknown> };
  response: { parsed_body?: unknown; body?: { string: string } | string };
}
const cassette = (name: string) =>
  (parse(readFileSync(`${CAPTURES_DIR}pydantic-ai/${name}.yaml`, "utf8")) as { interactions: Exchange[] })
    .interactions;

const claude = cassette("test_anthropic-test_anthropic_tool_with_thinking");
const gpt5 = cassette("test_openai_responses-test_openai_responses_thinking_with_tool_calls");
const gemini3 = cassette("test_google-test_google_streaming_tool_call_thought_signature");

/** A recorded Gemini stream as the non-streamed body it adds up to: every part, the last finish reason and usage. */
function aggregated(exchange: Exchange | undefined): unknown {
  const body = exchange?.response.body;
  const text = typeof body === "string" ? body : (body?.string ?? "");
  const chunks = text
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data: "))
    .map(
      (line) =>
        JSON.parse(line.slice(6)) as {
          candidates?: { content?: { parts?: unknown[] }; finishReason?: string }[];
          usageMetadata?: unknown;
          modelVersion?: string;
        },
    );
  const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []);
  const finishReason =
    chunks
      .map((c) => c.candidates?.[0]?.finishReason)
      .filter(Boolean)
      .at(-1) ?? "STOP";
  return {
    candidates: [{ content: { role: "model", parts }, finishReason, index: 0 }],
    usageMetadata: chunks.at(-1)?.usageMetadata,
    modelVersion: chunks.at(-1)?.modelVersion,
  };
}

const overloaded: WireReply = {
  status: 529,
  json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
};
const unavailable: WireReply = {
  status: 503,
  json: { error: { message: "The server is overloaded", type: "server_error" } },
};

let server: WireServer;
const seen: Record<"anthropic" | "responses" | "gemini", RecordedRequest[]> = {
  anthropic: [],
  responses: [],
  gemini: [],
};
beforeAll(async () => {
  server = await startWireServer();
  server.handler = (request) => {
    if (request.path === "/v1/messages") {
      seen.anthropic.push(request);
      // Step 1 answers; steps 2 and 3 are overloaded; step 4 answers again.
      const n = seen.anthropic.length;
      return n === 1
        ? { json: claude[0]?.response.parsed_body }
        : n === 4
          ? { json: claude[1]?.response.parsed_body }
          : overloaded;
    }
    if (request.path === "/v1/responses") {
      seen.responses.push(request);
      return seen.responses.length === 1 ? { json: gpt5[0]?.response.parsed_body } : unavailable;
    }
    seen.gemini.push(request);
    return { json: aggregated(gemini3[0]) };
  };
});
afterAll(() => server.close());

const noRetry = { retry: { maxRetries: 0 } };
const chain = () =>
  fallback(
    [
      new AnthropicModel("claude-sonnet-4-0", {
        apiKey: "sk-ant-transcript-key",
        baseURL: server.url,
        thinking: { budgetTokens: 3000 },
        cache: false,
        http: noRetry,
      }),
      new OpenAIResponsesModel("gpt-5", {
        apiKey: "sk-transcript-key-0123456789",
        baseURL: `${server.url}/v1`,
        reasoning: { effort: "low", summary: "detailed" },
        http: noRetry,
      }),
      new GeminiModel("gemini-3-pro-preview", {
        apiKey: "g-transcript-key",
        baseURL: server.url,
        http: noRetry,
      }),
    ],
    // No breaker: Claude is asked first at every step, as a chain with a healthy first model is.
    { breaker: { registry: new CircuitBreakers(), failures: 100 } },
  );

const tools = [
  tool({ name: "get_user_country", description: "", input: z.object({}), run: () => "Mexico" }),
  tool({
    name: "update_plan",
    description: "Update the plan.",
    input: z.object({ plan: z.string() }),
    run: () => "plan updated",
  }),
  tool({ name: "get_country", description: "", input: z.object({}), run: () => "Mexico" }),
];

type Body = Record<string, unknown>;
const bodyOf = (r: RecordedRequest | undefined) => r?.body as Body;

describe("a transcript with Anthropic thinking and OpenAI reasoning falls over to Gemini 3 and back", () => {
  const events: AgentEvent[] = [];
  let output = "";
  let elapsedMs = 0;

  beforeAll(async () => {
    const question = "What is the largest city in the user country?";
    const started = performance.now();
    const result = await new Agent({ model: chain(), tools }).run(question, {
      onEvent: (e) => events.push(e),
    });
    elapsedMs = performance.now() - started;
    output = String(result.output);
  });

  it("each step is answered by the model the servers allowed, and the run ends with Claude's recorded answer", () => {
    const answeredBy = events.flatMap((e) => (e.type === "model_response" ? [e.model] : []));
    expect(answeredBy).toEqual([
      "anthropic:claude-sonnet-4-0",
      "openai-responses:gpt-5",
      "google:gemini-3-pro-preview",
      "anthropic:claude-sonnet-4-0",
    ]);
    const switches = events.flatMap((e) =>
      e.type === "model_fallback" ? [[e.step, e.from, e.to, e.reason, e.status]] : [],
    );
    expect(switches).toEqual([
      [2, "anthropic:claude-sonnet-4-0", "openai-responses:gpt-5", "overloaded", 529],
      [3, "anthropic:claude-sonnet-4-0", "openai-responses:gpt-5", "overloaded", 529],
      [3, "openai-responses:gpt-5", "google:gemini-3-pro-preview", "overloaded", 503],
    ]);
    expect(output).toContain("Mexico City");
    // Bounded: no backoff waited on the way (three switches, four answers, all local).
    expect(elapsedMs).toBeLessThan(5_000);
    for (const e of events) if (e.type === "model_fallback") expect(e.elapsedMs).toBeLessThan(1_000);
  });

  it("Responses gets the calls and results, and none of Claude's thinking", () => {
    const input = bodyOf(seen.responses[0]).input as Body[];
    // Claude's words before its call stay an assistant message; its thinking is not there.
    expect(input.map((i) => i.type ?? i.role)).toEqual([
      "user",
      "assistant",
      "function_call",
      "function_call_output",
    ]);
    expect(input[2]).toMatchObject({ name: "get_user_country", arguments: "{}" });
    expect(input[3]).toMatchObject({ call_id: input[2]?.call_id, output: "Mexico" });
    expect(JSON.stringify(input)).not.toContain("signature");
    const dropped = events.find((e) => e.type === "reasoning_dropped" && e.step === 2);
    expect(dropped).toMatchObject({ from: ["anthropic"] });
  });

  it("Gemini 3 gets the placeholder thoughtSignature on other models' calls, shaped as the recorded Gemini 3 request", () => {
    const contents = bodyOf(seen.gemini.at(-1)).contents as { role: string; parts: Body[] }[];
    expect(contents.map((c) => c.role)).toEqual(["user", "model", "user", "model", "user"]);
    const turns = contents.filter((c) => c.role === "model").map((c) => c.parts);
    const calls = turns.map((parts) => parts.filter((p) => "functionCall" in p));
    for (const [i, parts] of turns.entries()) {
      expect(calls[i]?.[0]?.thoughtSignature).toBe(GEMINI_PLACEHOLDER_SIGNATURE);
      for (const part of parts) expect(part).not.toHaveProperty("thought");
    }
    // Claude's text before its call travels as plain text, with no signature of its own.
    expect(turns[0]?.[0]).toEqual({ text: expect.stringContaining("largest city") });
    expect(calls.map((parts) => (parts[0]?.functionCall as { name: string } | undefined)?.name)).toEqual([
      "get_user_country",
      "update_plan",
    ]);
    // The recorded second request of a Gemini 3 conversation: a function-call part is
    // { functionCall, thoughtSignature }, the function response follows in a user turn.
    const recorded = gemini3[1]?.request.parsed_body.contents as { role: string; parts: Body[] }[];
    expect(Object.keys(calls[0]?.[0] ?? {}).sort()).toEqual(Object.keys(recorded[1]?.parts[0] ?? {}).sort());
    expect(Object.keys(contents[2]?.parts[0] ?? {})).toEqual(Object.keys(recorded[2]?.parts[0] ?? {}));
    // No reasoning of Claude or GPT-5 travels to Gemini.
    const sent = JSON.stringify(contents);
    const claudeSignature = (
      claude[0]?.response.parsed_body as { content: { signature?: string }[] } | undefined
    )?.content[0]?.signature;
    expect(claudeSignature).toBeTypeOf("string");
    expect(sent).not.toContain(String(claudeSignature));
    expect(sent).not.toContain("encrypted_content");
  });

  it("Claude gets its own thinking back byte for byte, plain tool turns from the others, and no thinking parameter for Gemini's turn", () => {
    const last = bodyOf(seen.anthropic[3]);
    const messages = last.messages as { role: string; content: Body[] }[];
    expect(messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
    ]);
    const recordedThinking = (
      claude[0]?.response.parsed_body as { content: Body[] } | undefined
    )?.content.filter((b) => b.type === "thinking");
    expect(messages[1]?.content.slice(0, (recordedThinking ?? []).length)).toEqual(
      (recordedThinking ?? []).map((b) => ({
        type: "thinking",
        thinking: b.thinking,
        signature: b.signature,
      })),
    );
    // The recorded second request carried the same first assistant turn.
    const recordedTurn = (claude[1]?.request.parsed_body.messages as { content: Body[] }[] | undefined)?.[1]
      ?.content;
    expect(messages[1]?.content).toEqual(recordedTurn);
    for (const i of [3, 5]) {
      expect(messages[i]?.content.map((b) => b.type)).toEqual(["tool_use"]);
      expect(messages[i]?.content[0]?.id).toMatch(/^[a-zA-Z0-9_-]+$/);
    }
    expect(messages[6]?.content).toMatchObject([
      { type: "tool_result", tool_use_id: messages[5]?.content[0]?.id, content: "Mexico" },
    ]);
    expect(last).not.toHaveProperty("thinking");
    // The first request, whose last turn is the user's, thinks as configured.
    expect(bodyOf(seen.anthropic[0]).thinking).toEqual({ type: "enabled", budget_tokens: 3000 });
    const dropped = events.find((e) => e.type === "reasoning_dropped" && e.step === 4);
    expect(dropped).toMatchObject({ from: expect.arrayContaining(["google", "openai-responses"]) });
  });
});
