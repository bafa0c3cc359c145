/**
 * pydantic-ai's recorded OpenAI Responses API runs replayed as whole glassloop agent runs: tools
 * defined from the first recorded request, a local server answering with the recorded responses
 * (streams re-chunked at random byte boundaries), and every request glassloop sends compared with
 * the one the recorded client sent: the input items (messages, function calls and their outputs,
 * reasoning items with their encrypted content), tools, tool choice, reasoning settings, stream.
 */
import { Agent, type AgentEvent, type AgentTool, tool } from "glassloop";
import { OpenAIResponsesModel } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadCassette, type RecordedExchange, replyOf } from "../helpers/cassettes.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

type Item = Record<string, unknown>;
interface Body {
  model: string;
  instructions?: string | null;
  input: Item[];
  tools?: { name: string; description: string | null; parameters: Record<string, unknown> }[];
  tool_choice?: unknown;
  reasoning?: { effort?: string | null; summary?: string | null };
  include?: string[];
  stream?: boolean;
}

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const CASSETTES = [
  "test_openai_responses-test_openai_responses_model_simple_response_with_tool_call",
  "test_openai_responses-test_tool_output",
  "test_openai_responses-test_openai_responses_thinking_with_tool_calls",
  "test_openai_responses-test_openai_responses_stream",
  "test_openai_responses-test_openai_responses_streaming_usage",
];

describe("pydantic-ai Responses API cassettes as whole agent runs", () => {
  for (const name of CASSETTES) {
    const exchanges = loadCassette<Body>(name);
    const streamed = exchanges[0]?.request.parsed_body.stream === true;
    const seeds = streamed ? [1, 2, 3] : [0];
    for (const seed of seeds) {
      it(`${name}${streamed ? ` (re-chunked, seed ${seed})` : ""}: every request matches the recording`, async () => {
        server.handler = (_r, i) => replyOf(exchanges[i], seed, streamed ? 60 : 0);
        const { result, events } = await replay(exchanges, streamed);
        expect(server.requests).toHaveLength(exchanges.length);
        expect(server.unexpected).toBe(0);
        const pairs = new Map<string, string>();
        exchanges.forEach(({ request }, i) => {
          const sent = server.requests[i]?.body as Body;
          expect(server.requests[i]?.path).toBe("/v1/responses");
          pairCallIds(sent.input, request.parsed_body.input, pairs);
          expect(
            essence(sent, (id) => pairs.get(id) ?? `unpaired:${id}`),
            `request ${i + 1}`,
          ).toEqual(essence(request.parsed_body, (id) => id));
        });
        // The model_request events carry exactly the bytes that went over the wire.
        const requests = events.filter((e) => e.type === "model_request");
        expect(requests.map((e) => JSON.stringify(e.body))).toEqual(server.requests.map((r) => r.raw));
        const last = lastResponse(exchanges);
        const final = last.output.find((o) => o.type === "function_call" && o.name === "final_result");
        if (final) expect(result.output).toEqual(JSON.parse(final.arguments as string));
        else expect(result.output).toBe(textOf(last.output));
      });
    }
  }

  it("carries the reasoning item back on the next turn: id, every summary, the encrypted content", async () => {
    const exchanges = loadCassette<Body>(
      "test_openai_responses-test_openai_responses_thinking_with_tool_calls",
    );
    server.handler = (_r, i) => replyOf(exchanges[i]);
    const { result } = await replay(exchanges, false);
    const first = outputOf(exchanges[0])[0] as Item;
    const assistant = result.messages.find((m) => m.role === "assistant");
    expect(assistant?.role === "assistant" && assistant.reasoning?.length).toBe(5);
    expect(assistant?.role === "assistant" && assistant.reasoning?.[0]?.signature).toBe(
      first.encrypted_content,
    );
    const second = server.requests[1]?.body as Body;
    expect(second.input[1]).toEqual({
      type: "reasoning",
      id: first.id,
      summary: first.summary,
      encrypted_content: first.encrypted_content,
    });
    expect(second.include).toEqual(["reasoning.encrypted_content"]);
    expect(result.usage.reasoningTokens).toBe(1792);
    expect(result.usage.cachedInputTokens).toBe(2048);
  });

  it("previous_response_id mode sends only the new items after this model's last answer", async () => {
    const exchanges = loadCassette<Body>(
      "test_openai_responses-test_openai_responses_model_simple_response_with_tool_call",
    );
    server.handler = (_r, i) => replyOf(exchanges[i]);
    await replay(exchanges, false, { state: "previous_response_id" });
    const [first, second] = server.requests.map(
      (r) => r.body as Body & { store?: boolean; previous_response_id?: string },
    );
    expect(first?.store).toBe(true);
    expect(first?.previous_response_id).toBeUndefined();
    expect(second?.previous_response_id).toBe(
      (exchanges[0]?.response.parsed_body as { id?: string } | undefined)?.id,
    );
    expect(second?.input).toEqual([
      { type: "function_call_output", call_id: "call_YfwRsW8sUxDKipwyhWTzOXCA", output: "Potato City" },
    ]);
  });
});

async function replay(
  exchanges: RecordedExchange<Body>[],
  streamed: boolean,
  extra: { state?: "previous_response_id" } = {},
) {
  const first = exchanges[0]?.request.parsed_body as Body;
  const results = new Map<string, string>();
  for (const { request } of exchanges)
    for (const item of request.parsed_body.input)
      if (item.type === "function_call_output") results.set(item.call_id as string, item.output as string);
  const recordedCalls = exchanges.flatMap((e) => outputOf(e).filter((o) => o.type === "function_call"));
  const recordedTools = first.tools ?? [];
  const finalTool = recordedTools.find((t) => t.name === "final_result");
  let calls = 0;
  const tools: AgentTool<undefined>[] = recordedTools
    .filter((t) => t !== finalTool)
    .map((t) =>
      tool({
        name: t.name,
        description: t.description ?? "",
        input: z.fromJSONSchema(t.parameters) as z.ZodObject,
        run: (_args, { toolCallId }) => {
          // Old recordings sent the item id as call_id; the result is the one recorded for that turn.
          const recorded = results.get(toolCallId) ?? [...results.values()][calls];
          calls++;
          if (recorded === undefined) throw new Error(`no recorded result for ${toolCallId}`);
          return recorded;
        },
      }),
    );
  expect(recordedCalls.length).toBeGreaterThan(0);
  const effort = first.reasoning?.effort ?? undefined;
  const summary = first.reasoning?.summary ?? undefined;
  const model = new OpenAIResponsesModel(first.model, {
    baseURL: `${server.url}/v1`,
    apiKey: "sk-test-responses-0000",
    ...(effort && {
      reasoning: { effort, ...(summary && { summary }) } as NonNullable<
        ConstructorParameters<typeof OpenAIResponsesModel>[1]
      >["reasoning"],
    }),
    ...extra,
  });
  const common = {
    model,
    tools,
    ...(first.instructions ? { instructions: first.instructions } : {}),
    ...(first.tool_choice === "required" && { modelSettings: { toolChoice: "required" as const } }),
  };
  const input = String(first.input[0]?.content);
  const events: AgentEvent[] = [];
  const agent = finalTool
    ? new Agent({ ...common, output: z.fromJSONSchema(finalTool.parameters) })
    : new Agent(common);
  if (streamed) {
    const stream = agent.stream(input, { onEvent: (e) => events.push(e) });
    for await (const _ of stream);
    return { result: await stream.result, events };
  }
  return { result: await agent.run(input, { onEvent: (e) => events.push(e) }), events };
}

/** Pairs the call ids glassloop sent with the recorded ones, by position. */
function pairCallIds(sent: Item[], recorded: Item[], pairs: Map<string, string>): void {
  const ids = (items: Item[]) =>
    items.filter((i) => i.type === "function_call").map((i) => i.call_id as string);
  const recordedIds = ids(recorded);
  ids(sent).forEach((id, i) => {
    if (!pairs.has(id) && recordedIds[i] !== undefined) pairs.set(id, recordedIds[i] as string);
  });
}

/** A request in the terms that matter; the item ids and statuses the client echoed are not the API's input. */
function essence(body: Body, rename: (id: string) => string) {
  return {
    model: body.model,
    instructions: body.instructions || null,
    stream: body.stream ?? false,
    tool_choice: body.tool_choice ?? "auto",
    reasoning: body.reasoning?.effort ?? null,
    include: body.include ?? [],
    input: body.input
      // An empty assistant message says nothing (the recorded client sent one before its calls).
      .filter((i) => !(i.role === "assistant" && i.content === ""))
      .map((i) => {
        if (i.type === "function_call")
          return { type: i.type, call_id: rename(i.call_id as string), name: i.name, arguments: i.arguments };
        if (i.type === "function_call_output")
          return { type: i.type, call_id: rename(i.call_id as string), output: i.output };
        return i;
      }),
    tools: (body.tools ?? []).map((t) => ({
      name: t.name,
      // The description of final_result is the agent's own wording.
      description: t.name === "final_result" ? "(agent's)" : (t.description ?? ""),
      parameters: schemaEssence(t.parameters),
    })),
  };
}

/** A schema without the noise a zod round trip adds (`additionalProperties: {}`, safe-integer bounds). */
function schemaEssence(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(schemaEssence);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    const empty = v !== null && typeof v === "object" && Object.keys(v).length === 0;
    if (k === "$schema" || (k === "additionalProperties" && empty)) continue;
    if ((k === "minimum" || k === "maximum") && Math.abs(v as number) === Number.MAX_SAFE_INTEGER) continue;
    out[k] = schemaEssence(v);
  }
  return out;
}

function lastResponse(exchanges: RecordedExchange<Body>[]): { output: Item[] } {
  return { output: outputOf(exchanges.at(-1)) };
}

/** The output items of a recorded response, streamed (its response.completed) or not. */
function outputOf(exchange: RecordedExchange<Body> | undefined): Item[] {
  const response = exchange?.response;
  if (response?.parsed_body) return (response.parsed_body as { output: Item[] }).output;
  const sse = typeof response?.body === "string" ? response.body : (response?.body?.string ?? "");
  const completed = sse
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)) as { type: string; response?: { output: Item[] } })
    .find((e) => e.type === "response.completed");
  return completed?.response?.output ?? [];
}

function textOf(output: Item[]): string {
  return output
    .filter((o) => o.type === "message")
    .flatMap((o) => (o.content as Item[]).map((c) => String(c.text ?? "")))
    .join("");
}
