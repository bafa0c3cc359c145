/**
 * A transcript outlives its provider: a run on an OpenAI-compatible server (replayed from a
 * recording, a tool call whose id came back empty) continues on Anthropic, and the result goes
 * back to OpenAI. Tool-call ids follow each provider's rules, and every result stays with its call.
 */
import { readFileSync } from "node:fs";
import { Agent, type Message, tool } from "glassloop";
import { AnthropicModel, COMPATIBLE_QUIRKS, OPENAI_QUIRKS, OpenAIChatModel } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { CAPTURES_DIR, captureJson } from "../helpers/anthropic-captures.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;
const OPENAI_ID = /^[A-Za-z0-9_.:-]{1,40}$/;

interface Cassette {
  interactions: { response: { parsed_body: unknown } }[];
}
const cassette = (name: string) =>
  (parse(readFileSync(`${CAPTURES_DIR}pydantic-ai/${name}`, "utf8")) as Cassette).interactions.map(
    (i) => i.response.parsed_body,
  );

const getCurrentTime = tool({
  name: "get_current_time",
  description: "Get the current time.",
  input: z.object({}),
  run: () => "Noon",
});
const getUserCountry = tool({
  name: "get_user_country",
  description: "",
  input: z.object({}),
  run: () => "Mexico",
});
const tools = [getCurrentTime, getUserCountry];

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const openaiCompatible = () =>
  new OpenAIChatModel({
    model: "gemini-2.5-pro-preview-05-06",
    baseURL: `${server.url}/v1`,
    apiKey: "sk-openai-compat-key",
    quirks: COMPATIBLE_QUIRKS,
  });
const openai = () =>
  new OpenAIChatModel({
    model: "gpt-4.1-nano",
    baseURL: `${server.url}/v1`,
    apiKey: "sk-openai-key",
    quirks: OPENAI_QUIRKS,
  });
const claude = () =>
  new AnthropicModel("claude-sonnet-4-5", { apiKey: "sk-ant-key-123456", baseURL: server.url });

type Block = {
  type: string;
  id?: string;
  tool_use_id?: string;
  name?: string;
  content?: string;
  text?: string;
};
type ChatMsg = { role: string; content?: string; tool_calls?: { id: string }[]; tool_call_id?: string };

/** (call id, tool name) and (result id, content) pairs of an Anthropic request, in order. */
function anthropicPairs(body: unknown): { uses: [string, string][]; results: [string, string][] } {
  const uses: [string, string][] = [];
  const results: [string, string][] = [];
  for (const m of (body as { messages: { content: string | Block[] }[] }).messages) {
    if (typeof m.content === "string") continue;
    for (const b of m.content) {
      if (b.type === "tool_use") uses.push([b.id as string, b.name as string]);
      if (b.type === "tool_result") results.push([b.tool_use_id as string, b.content as string]);
    }
  }
  return { uses, results };
}

function openaiPairs(body: unknown): { calls: string[]; results: [string, string][] } {
  const messages = (body as { messages: ChatMsg[] }).messages;
  return {
    calls: messages.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)),
    results: messages
      .filter((m) => m.role === "tool")
      .map((m) => [m.tool_call_id as string, m.content as string]),
  };
}

describe("cross-provider history", () => {
  it("OpenAI-compatible (empty recorded id) → Anthropic → OpenAI, each result staying with its call", async () => {
    // Leg 1: the recorded Gemini-through-OpenAI run, whose tool call came back with id "".
    const [first, second] = cassette("test_openai-test_compatible_api_with_tool_calls_without_id.yaml");
    server.enqueue({ json: first }, { json: second });
    const leg1 = await new Agent({ model: openaiCompatible(), tools }).run("What is the current time?");
    expect(leg1.output).toBe("The current time is Noon.");
    const filled = leg1.messages.find((m) => m.role === "tool")?.toolCallId ?? "";
    expect(filled).not.toBe("");

    // Leg 2: Anthropic continues it, calls a tool of its own (recorded), then answers.
    const [toolUse] = cassette("test_anthropic-test_anthropic_tool_output.yaml");
    server.enqueue({ json: toolUse }, { json: captureJson("anthropic--anthropic-text") });
    const leg2 = await new Agent({ model: claude(), tools }).run(
      "What is the largest city in the user country?",
      {
        history: leg1.messages,
      },
    );
    const anthropicBodies = server.requests.slice(2).map((r) => r.body);
    expect(server.requests.slice(2).map((r) => r.path)).toEqual(["/v1/messages", "/v1/messages"]);
    const firstOnClaude = anthropicPairs(anthropicBodies[0]);
    expect(firstOnClaude.uses.map(([, name]) => name)).toEqual(["get_current_time"]);
    expect(firstOnClaude.results.map(([, content]) => content)).toEqual(["Noon"]);
    const secondOnClaude = anthropicPairs(anthropicBodies[1]);
    expect(secondOnClaude.uses.map(([id]) => id)).toEqual([
      firstOnClaude.uses[0]?.[0],
      "toolu_01X9wcHKKAZD9tBC711xipPa",
    ]);
    for (const { uses, results } of [firstOnClaude, secondOnClaude]) {
      for (const [id] of uses) expect(id).toMatch(ANTHROPIC_ID);
      expect(results.map(([id]) => id)).toEqual(uses.map(([id]) => id));
    }
    expect(secondOnClaude.results.map(([, c]) => c)).toEqual(["Noon", "Mexico"]);
    // The leg-1 turn reached Anthropic as text, call, result, answer, in that order.
    const roles = (anthropicBodies[0] as { messages: { role: string }[] }).messages.map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "user", "assistant", "user"]);

    // Leg 3: back on OpenAI, with Anthropic's toolu_ ids in the history.
    server.enqueue({ json: captureJson("openai--openai-text") });
    const leg3 = await new Agent({ model: openai(), tools }).run("Thanks! Invent a holiday.", {
      history: leg2.messages,
    });
    expect(leg3.output).toMatch(/Galaxy Day/);
    const back = openaiPairs(server.requests[4]?.body);
    expect(back.calls).toHaveLength(2);
    for (const id of back.calls) expect(id).toMatch(OPENAI_ID);
    expect(back.results).toEqual([
      [back.calls[0], "Noon"],
      [back.calls[1], "Mexico"],
    ]);
    expect(back.calls[1]).toBe("toolu_01X9wcHKKAZD9tBC711xipPa");
  });

  it("a history with an empty id and ids foreign to both providers is made valid for each, consistently", async () => {
    const long = `call_${"x".repeat(60)}`;
    const calls = ["", "functions.get_current_time:0", long, "a.b", "a_b", "call/7"];
    const contents = calls.map((_, i) => `result ${i}`);
    const history: Message[] = [{ role: "user", content: "time, many times" }];
    for (const [i, id] of calls.entries()) {
      history.push({
        role: "assistant",
        content: "",
        toolCalls: [{ id, name: "get_current_time", arguments: "{}" }],
      });
      history.push({
        role: "tool",
        toolCallId: id,
        toolName: "get_current_time",
        content: contents[i] as string,
      });
    }
    history.push({ role: "assistant", content: "Done." });

    server.enqueue(
      { json: captureJson("anthropic--anthropic-text") },
      { json: captureJson("openai--openai-text") },
    );
    await new Agent({ model: claude(), tools }).run("again?", { history });
    await new Agent({ model: openai(), tools }).run("again?", { history });

    const onClaude = anthropicPairs(server.requests[0]?.body);
    expect(onClaude.uses).toHaveLength(6);
    for (const [id] of onClaude.uses) expect(id).toMatch(ANTHROPIC_ID);
    expect(new Set(onClaude.uses.map(([id]) => id)).size).toBe(6);
    expect(onClaude.results).toEqual(onClaude.uses.map(([id], i) => [id, contents[i]]));

    const onOpenAI = openaiPairs(server.requests[1]?.body);
    for (const id of onOpenAI.calls) expect(id).toMatch(OPENAI_ID);
    expect(new Set(onOpenAI.calls).size).toBe(6);
    expect(onOpenAI.results).toEqual(onOpenAI.calls.map((id, i) => [id, contents[i]]));
  });
});
