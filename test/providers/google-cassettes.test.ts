/**
 * pydantic-ai's recorded Gemini API runs replayed as whole glassloop agent runs: a local server
 * answers `generateContent` / `streamGenerateContent?alt=sse` with the recorded responses (streams
 * re-chunked at random byte boundaries), and every request glassloop sends is compared with the one
 * the recorded client sent: contents, function calls and responses paired by id, thought parts,
 * and the `thoughtSignature`s, which must come back exactly (Gemini 3 rejects a turn without them).
 */
import { Agent, type AgentEvent, type Message, type RunResult, tool } from "glassloop";
import { GeminiModel, type GeminiOptions, toGeminiSchema } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadCassette, type RecordedExchange, replyOf } from "../helpers/cassettes.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

type Part = Record<string, unknown>;
interface Body {
  contents: { role: string; parts: Part[] }[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: Part[] }[];
  toolConfig?: { functionCallingConfig: { mode: string } };
  generationConfig?: {
    temperature?: number;
    thinkingConfig?: { include_thoughts?: boolean; includeThoughts?: boolean };
  };
}

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const KEY = "gemini-test-key-0000";
const gemini = (name: string, options: GeminiOptions = {}) =>
  new GeminiModel(name, { apiKey: KEY, baseURL: `${server.url}/v1beta`, env: {}, ...options });

async function runOf(
  agent: Agent<undefined, unknown>,
  input: string,
  streamed: boolean,
  history?: Message[],
) {
  const events: AgentEvent[] = [];
  const options = { onEvent: (e: AgentEvent) => events.push(e), ...(history && { history }) };
  if (!streamed) return { result: await agent.run(input, options), events };
  const stream = agent.stream(input, options);
  for await (const _ of stream);
  return { result: await stream.result, events };
}

/** Compares each request glassloop sent with the recorded one, and the paths with the recorded URIs. */
function expectRequestsMatch(exchanges: RecordedExchange<Body>[]) {
  expect(server.requests).toHaveLength(exchanges.length);
  expect(server.unexpected).toBe(0);
  const pairs = new Map<string, string>();
  exchanges.forEach(({ request }, i) => {
    const sent = server.requests[i];
    expect(sent?.path).toBe(new URL(request.uri).pathname + new URL(request.uri).search);
    expect(sent?.headers["x-goog-api-key"]).toBe(KEY);
    const body = sent?.body as Body;
    pairIds(body, request.parsed_body, pairs);
    expect(
      essence(body, (id) => pairs.get(id) ?? `unpaired:${id}`),
      `request ${i + 1}`,
    ).toEqual(essence(request.parsed_body, (id) => id));
  });
}

describe("pydantic-ai Gemini cassettes as whole agent runs", () => {
  it("test_google_tool_output: a call, its response, then the output tool (non-streamed)", async () => {
    const exchanges = loadCassette<Body>("test_google-test_google_tool_output");
    server.handler = (_r, i) => replyOf(exchanges[i]);
    const country = tool({
      name: "get_user_country",
      description: "",
      input: z.object({}),
      run: () => "Mexico",
    });
    const agent = new Agent({
      model: gemini("gemini-2.0-flash"),
      tools: [country],
      output: z.object({ city: z.string(), country: z.string() }),
      modelSettings: { toolChoice: "required" },
    });
    const { result } = await runOf(agent, "What is the largest city in the user country?", false);
    expectRequestsMatch(exchanges);
    expect(result.output).toEqual({ city: "Mexico City", country: "Mexico" });
    expect(result.usage).toMatchObject({ requests: 2, inputTokens: 80, outputTokens: 13 });
  });

  for (const seed of [1, 2, 3]) {
    it(`test_google_model_stream: text deltas, system instruction, temperature (re-chunked, seed ${seed})`, async () => {
      const exchanges = loadCassette<Body>("test_google-test_google_model_stream");
      server.handler = (_r, i) => replyOf(exchanges[i], seed, 30);
      const agent = new Agent({
        model: gemini("gemini-2.0-flash-exp"),
        instructions: "You are a helpful chatbot.",
        modelSettings: { temperature: 0 },
      });
      const { result, events } = await runOf(agent, "What is the capital of France?", true);
      expectRequestsMatch(exchanges);
      expect(result.output).toBe("The capital of France is Paris.\n");
      expect(events.flatMap((e) => (e.type === "text_delta" ? [e.text] : [])).join("")).toBe(result.output);
      expect(result.usage).toMatchObject({ inputTokens: 13, outputTokens: 8 });
    });

    it(`test_google_streaming_tool_call_thought_signature: the call's signature goes back on the call (seed ${seed})`, async () => {
      const exchanges = loadCassette<Body>("test_google-test_google_streaming_tool_call_thought_signature");
      server.handler = (_r, i) => replyOf(exchanges[i], seed, 30);
      const getCountry = tool({
        name: "get_country",
        description: "",
        input: z.object({}),
        run: () => "Mexico",
      });
      const agent = new Agent({ model: gemini("gemini-3-pro-preview"), tools: [getCountry] });
      const { result } = await runOf(agent, "What is the capital of the user country? Call the tool", true);
      expectRequestsMatch(exchanges);
      expect(result.output).toBe("The capital of Mexico is Mexico City.");
      const call = result.messages[1];
      expect(call?.role === "assistant" && call.reasoning).toEqual([
        {
          type: "reasoning",
          provider: "google",
          text: "",
          signature: expect.stringMatching(/^EpwICpkIAXLI2nxl/),
          anchor: { toolCallId: call?.role === "assistant" ? call.toolCalls?.[0]?.id : "" },
        },
      ]);
      expect(result.usage.reasoningTokens).toBe(202);
    });
  }

  it("test_google_model_thinking_part: thoughts and the text's signature carried into the next run", async () => {
    const exchanges = loadCassette<Body>("test_google-test_google_model_thinking_part");
    server.handler = (_r, i) => replyOf(exchanges[i]);
    const dummy = tool({ name: "dummy", description: "", input: z.object({}), run: () => "" });
    const agent = new Agent({
      model: gemini("gemini-3-pro-preview", { thinking: { includeThoughts: true } }),
      instructions: "You are a helpful assistant.",
      tools: [dummy],
    });
    const first = await runOf(agent, "How do I cross the street?", false);
    const answer = first.result.messages.at(-1);
    expect(
      answer?.role === "assistant" && answer.reasoning?.map((r) => [r.text.slice(0, 20), r.anchor]),
    ).toEqual([
      ["**A Safe Street-Cros", undefined],
      ["", "text"],
    ]);
    const second = await runOf(
      agent,
      "Considering the way to cross the street, analogously, how do I cross the river?",
      false,
      first.result.messages,
    );
    expectRequestsMatch(exchanges);
    expect(String(second.result.output)).toMatch(/^Crossing a river is deceptively similar/);
    expect(first.result.usage).toMatchObject({
      inputTokens: 29,
      outputTokens: 736 + 1001,
      reasoningTokens: 1001,
    });
  });
});

describe("Gemini 3 after another model's tool calls", () => {
  // The recorded second request of a real Gemini 3 run, with its first turn made by Anthropic
  // instead: the call and its result are the same, only the signature cannot be Gemini's own.
  it("the call carries Google's placeholder signature, and the recorded Gemini 3 answer completes the run", async () => {
    const exchanges = loadCassette<Body>("test_google-test_google_streaming_tool_call_thought_signature");
    const recorded = exchanges[1] as RecordedExchange<Body>;
    server.handler = () => replyOf(recorded, 7, 20);
    const history: Message[] = [
      { role: "user", content: "What is the capital of the user country? Call the tool" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "toolu_01A", name: "get_country", arguments: "{}" }],
        reasoning: [
          { type: "reasoning", provider: "anthropic", text: "Call it.", signature: "EqQBCkYIBxgCKkA" },
        ],
      },
      { role: "tool", toolCallId: "toolu_01A", toolName: "get_country", content: "Mexico" },
    ];
    const observed: string[] = [];
    const answer = await gemini("gemini-3-pro-preview").generate(
      {
        messages: history,
        tools: [{ name: "get_country", description: "", parameters: { type: "object", properties: {} } }],
        stream: true,
        signal: new AbortController().signal,
      },
      { onRequest: () => {}, onReasoningDropped: (i) => observed.push(...i.from) },
    );
    const sent = server.requests[0]?.body as Body;
    const expected = essence(recorded.request.parsed_body, (id) =>
      id.startsWith("pyd_ai_") ? "toolu_01A" : id,
    );
    const call = expected.contents[1]?.parts[0] as { thoughtSignature?: string };
    call.thoughtSignature = bytesOf("skip_thought_signature_validator");
    expect(essence(sent, (id) => id)).toEqual(expected);
    expect(sent.contents[1]?.parts).toEqual([
      {
        functionCall: { id: "toolu_01A", name: "get_country", args: {} },
        thoughtSignature: "skip_thought_signature_validator",
      },
    ]);
    expect(observed).toEqual(["anthropic"]);
    expect(answer.text).toBe("The capital of Mexico is Mexico City.");
  });

  it("Gemini's own signed call goes back unchanged, and Gemini 2.5 gets no placeholder", async () => {
    const own: Message[] = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "a", name: "get_country", arguments: "{}" },
          { id: "b", name: "get_country", arguments: "{}" },
        ],
        reasoning: [
          {
            type: "reasoning",
            provider: "google",
            text: "",
            signature: "c2lnbmVk",
            anchor: { toolCallId: "a" },
          },
        ],
      },
      { role: "tool", toolCallId: "a", toolName: "get_country", content: "Mexico" },
      { role: "tool", toolCallId: "b", toolName: "get_country", content: "Mexico" },
    ];
    const foreign: Message[] = [
      { role: "user", content: "q" },
      { role: "assistant", content: "", toolCalls: [{ id: "c", name: "get_country", arguments: "{}" }] },
      { role: "tool", toolCallId: "c", toolName: "get_country", content: "Mexico" },
    ];
    const ok = {
      json: { candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP" }] },
    };
    const request = (messages: Message[]) => ({ messages, tools: [], signal: new AbortController().signal });
    server.enqueue(ok, ok);
    await gemini("gemini-3-flash-preview").generate(request(own), { onRequest: () => {} });
    await gemini("gemini-2.5-flash").generate(request(foreign), { onRequest: () => {} });
    const modelTurn = (i: number) => (server.requests[i]?.body as Body | undefined)?.contents[1]?.parts;
    expect(modelTurn(0)).toEqual([
      { functionCall: { id: "a", name: "get_country", args: {} }, thoughtSignature: "c2lnbmVk" },
      { functionCall: { id: "b", name: "get_country", args: {} } },
    ]);
    expect(modelTurn(1)).toEqual([{ functionCall: { id: "c", name: "get_country", args: {} } }]);
  });
});

describe("Gemini requests", () => {
  it("a transcript from another provider loses its reasoning, with a reasoning_dropped event", async () => {
    server.enqueue({
      json: { candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP" }] },
    });
    const history: Message[] = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: "a",
        reasoning: [{ type: "reasoning", provider: "anthropic", text: "t", signature: "s" }],
      },
    ];
    const { events } = await runOf(new Agent({ model: gemini("gemini-2.5-flash") }), "next", false, history);
    expect(events.filter((e) => e.type === "reasoning_dropped")).toMatchObject([
      { count: 1, from: ["anthropic"] },
    ]);
    expect((server.requests[0]?.body as Body | undefined)?.contents[1]).toEqual({
      role: "model",
      parts: [{ text: "a" }],
    });
  });

  it("a blocked prompt is a GeminiBlockedError naming the reason, not an empty answer", async () => {
    server.enqueue({
      json: { promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 3 } },
    });
    const error = await new Agent({ model: gemini("gemini-2.5-flash") })
      .run("bad")
      .catch((e: unknown) => e as { code: string; cause: { code: string; reason: string; where: string } });
    expect(error).toMatchObject({
      cause: { code: "content_blocked", reason: "PROHIBITED_CONTENT", where: "prompt" },
    });
  });

  it("an answer emptied by the safety filter is a GeminiBlockedError; a partial one is content_filter and asked again", async () => {
    server.enqueue(
      { json: { candidates: [{ finishReason: "SAFETY", content: { parts: [] } }] } },
      {
        json: {
          candidates: [{ finishReason: "SAFETY", content: { role: "model", parts: [{ text: "Part" }] } }],
        },
      },
      {
        json: {
          candidates: [{ finishReason: "STOP", content: { role: "model", parts: [{ text: "Fine." }] } }],
        },
      },
    );
    const model = gemini("gemini-2.5-flash");
    const blocked = await new Agent({ model })
      .run("x")
      .catch((e: unknown) => e as { cause: { code: string; where: string } });
    expect(blocked).toMatchObject({ cause: { code: "content_blocked", where: "response" } });
    const events: AgentEvent[] = [];
    const partial: RunResult<string> = await new Agent({ model }).run("x", {
      onEvent: (e) => events.push(e),
    });
    // A filtered answer never ends the run: the model is asked again.
    expect(partial.output).toBe("Fine.");
    expect(events.find((e) => e.type === "model_response")).toMatchObject({ finishReason: "content_filter" });
  });
});

/** Pairs the function-call ids glassloop sent with the recorded ones, by position. */
function pairIds(sent: Body, recorded: Body, pairs: Map<string, string>): void {
  const ids = (b: Body) =>
    b.contents.flatMap((c) =>
      c.parts.flatMap((p) => (p.functionCall ? [(p.functionCall as Part).id as string] : [])),
    );
  const recordedIds = ids(recorded);
  ids(sent).forEach((id, i) => {
    if (!pairs.has(id) && recordedIds[i] !== undefined) pairs.set(id, recordedIds[i] as string);
  });
}

/** Signatures as the bytes they stand for: the recorded client re-encoded them in base64url. */
const bytesOf = (signature: unknown) => String(signature).replaceAll("-", "+").replaceAll("_", "/");

function essence(body: Body, rename: (id: string) => string) {
  return {
    system: body.systemInstruction?.parts.map((p) => p.text).join("") ?? null,
    contents: body.contents.map((c) => ({
      role: c.role,
      parts: c.parts.map((p) => {
        const signature =
          p.thoughtSignature === undefined ? {} : { thoughtSignature: bytesOf(p.thoughtSignature) };
        if (p.functionCall) {
          const call = p.functionCall as Part;
          return { call: call.name, args: call.args ?? {}, id: rename(String(call.id)), ...signature };
        }
        if (p.functionResponse) {
          const response = p.functionResponse as { id?: string; name: string; response: Part };
          // pydantic-ai wraps the result as `return_value`, glassloop as `output`: the value is what counts.
          return {
            response: response.name,
            value: Object.values(response.response)[0],
            id: rename(String(response.id)),
          };
        }
        return { text: p.text, thought: p.thought === true, ...signature };
      }),
    })),
    tools: (body.tools ?? []).flatMap((t) =>
      t.functionDeclarations.map((d) => ({
        name: d.name,
        // The description of final_result is the agent's own wording.
        description: d.name === "final_result" ? "(agent's)" : d.description,
        // A recorded JSON Schema (`parameters_json_schema`) is compared in Gemini's subset, as glassloop sends it.
        parameters: d.parameters_json_schema
          ? toGeminiSchema(String(d.name), d.parameters_json_schema as Record<string, unknown>)
          : d.parameters,
      })),
    ),
    mode: body.toolConfig?.functionCallingConfig.mode ?? "AUTO",
    temperature: body.generationConfig?.temperature ?? null,
    thoughts:
      body.generationConfig?.thinkingConfig?.includeThoughts ??
      body.generationConfig?.thinkingConfig?.include_thoughts ??
      false,
  };
}
