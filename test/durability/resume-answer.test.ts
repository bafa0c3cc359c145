import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type Message } from "glassloop";
import { type RunCheckpoint, SqliteStore } from "glassloop/store";
import { ScriptedModel } from "glassloop/testing";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { emptyUsage } from "../../src/loop/usage.js";
import { expectEveryCallAnswered } from "../helpers/core.js";

// A pid above Linux's pid_max: the process that "crashed" is certainly gone.
const DEAD_PID = 2_147_483_000;
const STEP = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, toolCalls: 0, durationMs: 0 };

const dirs: string[] = [];
const stores: SqliteStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A store that keeps a copy of every checkpoint it writes. */
class RecordingStore extends SqliteStore {
  readonly checkpoints: RunCheckpoint[] = [];
  override async checkpoint(runId: string, checkpoint: RunCheckpoint): Promise<void> {
    this.checkpoints.push(structuredClone(checkpoint));
    return super.checkpoint(runId, checkpoint);
  }
}

function freshStore(): RecordingStore {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-resume-answer-"));
  dirs.push(dir);
  const store = new RecordingStore({ path: join(dir, "db.sqlite") });
  stores.push(store);
  return store;
}

/** A run whose process died right after the checkpoint of its first model answer. */
async function crashedAfterAnswer(
  store: SqliteStore,
  agent: Agent<undefined, unknown>,
  answer: Message,
  progress: Parameters<SqliteStore["createRun"]>[0]["progress"],
): Promise<string> {
  const runId = `run_crashed_${Math.random().toString(36).slice(2)}`;
  await store.createRun({
    runId,
    agent: agent.name,
    model: agent.model.id,
    input: "What is 6 x 70?",
    owner: { pid: DEAD_PID, host: hostname() },
    messages: [{ role: "user", content: "What is 6 x 70?" }, answer],
    usage: { ...emptyUsage(false), requests: 1, steps: [{ ...STEP, step: 1 }] },
    progress,
    tools: { names: agent.registry.list().map((t) => t.name) },
  });
  return runId;
}

describe("a resumed run decides a stored answer as the live loop does", () => {
  it("the checkpoint after a model answer records its finish reason", async () => {
    const store = freshStore();
    const model = new ScriptedModel([{ text: "The answer is", finishReason: "length" }, { text: "420" }]);
    await new Agent({ model, store }).run("What is 6 x 70?");
    const afterCut = store.checkpoints.find(
      (c) => c.messages.at(-1)?.role === "assistant" && c.messages.at(-1)?.content === "The answer is",
    );
    expect(afterCut?.progress.finishReason).toBe("length");
  });

  it("a stored text answer that was cut off gets the cut-off feedback on resume, not reported as the output", async () => {
    const store = freshStore();
    const model = new ScriptedModel([{ text: "The answer is 420." }]);
    const agent = new Agent({ model, store });
    const runId = await crashedAfterAnswer(
      store,
      agent,
      { role: "assistant", content: "The answer is" },
      {
        pending: [],
        finishReason: "length",
      },
    );
    const result = await agent.resume(runId);
    expect(result.output).toBe("The answer is 420.");
    expect(model.requests[0]?.messages.at(-1)).toEqual({
      role: "user",
      content: "Your answer was cut off at the output token limit. Answer again, more briefly.",
    });
  });

  it("a stored text answer that finished normally is the output on resume, without a model call", async () => {
    const store = freshStore();
    const model = new ScriptedModel([]);
    const agent = new Agent({ model, store });
    const runId = await crashedAfterAnswer(
      store,
      agent,
      { role: "assistant", content: "420" },
      {
        pending: [],
        finishReason: "stop",
      },
    );
    await expect(agent.resume(runId)).resolves.toMatchObject({ output: "420", finishedBy: "text" });
  });

  it("a stored final_result call that was cut off is not executed on resume; the model answers again", async () => {
    const store = freshStore();
    const model = new ScriptedModel([
      { toolCalls: [{ id: "f2", name: "final_result", args: { answer: 420 } }] },
    ]);
    const agent = new Agent({ model, store, output: z.object({ answer: z.number() }) });
    const call = { id: "f1", name: "final_result", arguments: '{"answer":4' };
    const runId = await crashedAfterAnswer(
      store,
      agent as Agent<undefined, unknown>,
      { role: "assistant", content: "", toolCalls: [call] },
      { pending: [{ call, state: "queued" }], finishReason: "length" },
    );
    const result = await agent.resume(runId);
    expect(result.output).toEqual({ answer: 420 });
    expectEveryCallAnswered(result.messages);
    expect(result.messages.find((m) => m.role === "tool" && m.toolCallId === "f1")).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^Not executed: your response was cut off/),
    });
  });
});
