import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import {
  Agent,
  type AgentEvent,
  type Message,
  ModelCallError,
  type ModelRequest,
  resolveModel,
  tool,
} from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { ReplayDivergenceError, ReplayModel, TraceWriter } from "glassloop/trace";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { toAnthropicBody } from "./anthropic/request.js";
import { OPENAI_QUIRKS } from "./openai/quirks.js";
import { toChatBody } from "./openai/request.js";
import { canonicalFromBody, canonicalFromRequest } from "./replay/canonical.js";

const dir = mkdtempSync(join(tmpdir(), "glassloop-replay-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const numbers = z.object({ a: z.number(), b: z.number() });
const add = (offset = 0) =>
  tool({ name: "add", description: "Adds two numbers.", input: numbers, run: ({ a, b }) => a + b + offset });
const multiply = tool({
  name: "multiply",
  description: "Multiplies two numbers.",
  input: numbers,
  run: ({ a, b }) => a * b,
});
const TASK = "Add 200 and 10, then multiply the result by 2.";
const agentWith = (model: ConstructorParameters<typeof Agent>[0]["model"], offset = 0) =>
  new Agent({ instructions: "Perform arithmetic with the tools.", model, tools: [add(offset), multiply] });

/** Records the calculator run (scripted answers) to a trace file, as `--trace` would. */
async function record(name: string, stream = false): Promise<string> {
  const file = join(dir, `${name}.jsonl`);
  const writer = new TraceWriter({ file });
  const model = new ScriptedModel([
    {
      toolCalls: [{ name: "add", args: { a: 200, b: 10 }, id: "call_A" }],
      usage: { inputTokens: 50, outputTokens: 10 },
    },
    { toolCalls: [{ name: "multiply", args: { a: 210, b: 2 }, id: "call_B" }] },
    { text: "The answer is 420." },
  ]);
  const agent = agentWith(model);
  if (stream) {
    const run = agent.stream(TASK, { onEvent: writer.onEvent });
    for await (const _ of run);
    await run.result;
  } else await agent.run(TASK, { onEvent: writer.onEvent });
  return file;
}

describe("replay: a recorded run plays back through the real loop", () => {
  it("reproduces the output, the transcript and the usage, and costs nothing", async () => {
    const file = await record("calc");
    const replay = ReplayModel.fromFile(file);
    expect(replay.recordedModel).toBe("scripted:test");
    expect(replay.exchanges).toHaveLength(3);
    const result = await agentWith(replay).run(TASK);
    expect(result.output).toBe("The answer is 420.");
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["210", "420"]);
    expect(result.usage.inputTokens).toBeGreaterThanOrEqual(50);
    expect(result.usage.costUsd).toBe(0);
    expect(replay.remaining).toBe(0);
  });

  it("resolves from a model string, replays streamed text pieces, and emits its request as model_request", async () => {
    const file = await record("calc-stream", true);
    const events: AgentEvent[] = [];
    const run = agentWith(resolveModel(`replay:${file}`)).stream(TASK, { onEvent: (e) => events.push(e) });
    for await (const _ of run);
    expect((await run.result).output).toBe("The answer is 420.");
    const deltas = events.filter((e) => e.type === "text_delta").map((e) => (e as { text: string }).text);
    expect(deltas.join("")).toBe("The answer is 420.");
    expect(deltas.length).toBeGreaterThan(1);
    const request = events.find((e) => e.type === "model_request");
    expect(request).toMatchObject({
      model: `replay:${file}`,
      body: { instructions: "Perform arithmetic with the tools." },
    });
  });

  it("stops with an error naming the call and what differs when a tool result changed", async () => {
    const file = await record("calc-diverge");
    const error = await agentWith(ReplayModel.fromFile(file), 1)
      .run(TASK)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).code).toBe("replay_divergence");
    const cause = (error as ModelCallError).cause as ReplayDivergenceError;
    expect(cause).toBeInstanceOf(ReplayDivergenceError);
    expect(cause.call).toBe(2);
    expect(cause.path).toBe("messages[2].content");
    expect(cause.recorded).toBe("210");
    expect(cause.actual).toBe("211");
    expect(cause.message).toBe(
      'Replay diverged at model call 2 (step 2 of the recorded run): messages[2].content differs. Recorded "210", the agent sent "211"',
    );
  });

  it("stops when the agent's instructions, tools or task differ, or it asks for more calls than recorded", async () => {
    const file = await record("calc-other");
    const other = new Agent({
      instructions: "Be brief.",
      model: ReplayModel.fromFile(file),
      tools: [add(), multiply],
    });
    await expect(other.run(TASK)).rejects.toThrow(/model call 1 .*instructions differs/);
    const fewerTools = new Agent({
      instructions: "Perform arithmetic with the tools.",
      model: ReplayModel.fromFile(file),
      tools: [add()],
    });
    await expect(fewerTools.run(TASK)).rejects.toThrow(
      /model call 1 .*tools\[1\] differs. The recording has .*multiply.* there; the agent.s request does not \(recorded tools: add, multiply; the agent.s: add\)/,
    );
    await expect(agentWith(ReplayModel.fromFile(file)).run("Add 1 and 2.")).rejects.toThrow(
      /messages\[0\]\.content\[0\] differs/,
    );
    const replay = ReplayModel.fromFile(file);
    const agent = agentWith(replay);
    const first = await agent.run(TASK);
    await expect(agent.run("again", { history: first.messages })).rejects.toThrow(
      /model call 4: the recording has only 3 model call\(s\)/,
    );
  });

  it("refuses a missing file, a file without model calls and an unknown run clearly", async () => {
    expect(() => ReplayModel.fromFile(join(dir, "nope.jsonl"))).toThrow(
      /cannot read .*nope\.jsonl \(no such file\)/,
    );
    const file = await record("calc-runs");
    expect(() => ReplayModel.fromFile(`${file}#run_missing`)).toThrow(/no model calls of run run_missing/);
    const runId = JSON.parse(readFileSync(file, "utf8").split("\n")[0] as string).runId as string;
    expect(ReplayModel.fromFile(`${file}#${runId}`).exchanges).toHaveLength(3);
  });

  it("replays a recorded model failure as a failure", async () => {
    const file = join(dir, "failing.jsonl");
    const writer = new TraceWriter({ file });
    const failing = new ScriptedModel([{ error: "upstream 503" }]);
    await agentWith(failing)
      .run(TASK, { onEvent: writer.onEvent })
      .catch(() => undefined);
    await expect(agentWith(ReplayModel.fromFile(file)).run(TASK)).rejects.toThrow(
      /\(replayed failure\).*upstream 503/,
    );
  });
});

describe("replay: recordings in any wire format compare by meaning", () => {
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
    { role: "tool", toolCallId: "call_2", toolName: "multiply", content: "420", isError: false },
    { role: "user", content: "Please answer in words." },
  ];
  const request: ModelRequest = {
    instructions: "Perform arithmetic with the tools.",
    messages: transcript,
    tools: [agentWith(new ScriptedModel([])).registry.specs()].flat(),
    toolChoice: "required",
    maxOutputTokens: 1024,
    temperature: 0.1,
    stream: true,
    signal: new AbortController().signal,
  };

  it("an OpenAI Chat Completions body means the same as the request it was made from", () => {
    const body = toChatBody(request, { model: "gpt-4o", parallelToolCalls: false }, OPENAI_QUIRKS);
    expect(canonicalFromBody(body, "openai:gpt-4o")).toEqual(canonicalFromRequest(request));
  });

  it("an Anthropic Messages body means the same (its required max_tokens aside)", () => {
    const body = toAnthropicBody(request, { model: "claude-x", maxTokens: 4096 });
    const { maxOutputTokens: _, ...expected } = canonicalFromRequest(request);
    expect(canonicalFromBody(body, "anthropic:claude-x")).toEqual(expected);
  });

  it("tells a changed tool result apart in every format, and ignores only tool-call id spelling", () => {
    fc.assert(
      fc.property(fc.string(), fc.stringMatching(/^[a-z]{1,8}$/), (changed, idSuffix) => {
        const renamed = transcript.map((m): Message => {
          if (m.role === "tool") return { ...m, toolCallId: `${m.toolCallId}_${idSuffix}` };
          if (m.role === "assistant" && m.toolCalls)
            return { ...m, toolCalls: m.toolCalls.map((c) => ({ ...c, id: `${c.id}_${idSuffix}` })) };
          return m;
        });
        const same = { ...request, messages: renamed };
        expect(canonicalFromRequest(same)).toEqual(canonicalFromRequest(request));
        const edited = {
          ...request,
          messages: transcript.map((m) =>
            m.role === "tool" && m.content === "210" ? { ...m, content: changed } : m,
          ),
        };
        const body = toChatBody(edited, { model: "gpt-4o" }, OPENAI_QUIRKS);
        const equal =
          JSON.stringify(canonicalFromBody(body, "openai:gpt-4o")) ===
          JSON.stringify(canonicalFromRequest(request));
        expect(equal).toBe(changed === "210");
      }),
    );
  });
});
