import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import {
  Agent,
  type AgentEvent,
  ApprovalRequiredError,
  type Guardrails,
  GuardrailTripwireError,
  tool,
} from "glassloop";
import { SqliteStore } from "glassloop/store";
import { ScriptedModel } from "glassloop/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { emptyUsage } from "../../src/loop/usage.js";
import { expectEveryCallAnswered } from "../helpers/core.js";

// A pid above Linux's pid_max: the process that "crashed" is certainly gone.
const DEAD_PID = 2_147_483_000;

let dir: string;
let store: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "glassloop-guardrails-resume-"));
  store = new SqliteStore({ path: join(dir, "g.db") });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Guardrails that count their checks: a resumed run must not re-judge what was judged, and must judge what was not. */
function counted() {
  const seen = { input: 0, before: [] as string[] };
  const guardrails: Guardrails = {
    input: [
      {
        name: "input-seen",
        check: () => {
          seen.input++;
          return { action: "allow" };
        },
      },
    ],
    output: [
      {
        name: "no-passwords",
        check: ({ output }) =>
          String(output).includes("hunter2")
            ? { action: "tripwire", reason: "leaks a password" }
            : { action: "allow" },
      },
    ],
    tools: [
      {
        name: "cap",
        before: ({ toolCallId, args }) => {
          seen.before.push(toolCallId);
          return (args as { amount: number }).amount > 1_000
            ? { action: "reject", message: "At most 1000 per transfer." }
            : { action: "allow" };
        },
      },
    ],
  };
  return { seen, guardrails };
}

describe("guardrails in a durable run", () => {
  it("judge a stored final answer when a crashed run resumes: the answer is never returned unchecked", async () => {
    const { seen, guardrails } = counted();
    const agent = new Agent({ model: new ScriptedModel([]), store, guardrails });
    // The process died right after checkpointing its final answer, before the output guardrail decided.
    const runId = "run_crashed_after_answer";
    await store.createRun({
      runId,
      agent: agent.name,
      model: agent.model.id,
      input: "What is the password?",
      owner: { pid: DEAD_PID, host: hostname() },
      messages: [
        { role: "user", content: "What is the password?" },
        { role: "assistant", content: "It is hunter2." },
      ],
      usage: {
        ...emptyUsage(false),
        requests: 1,
        steps: [
          { step: 1, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, toolCalls: 0, durationMs: 0 },
        ],
      },
      progress: { pending: [], finishReason: "stop" },
      tools: { names: [] },
    });
    const events: AgentEvent[] = [];
    const error = await agent.resume(runId, { onEvent: (e) => events.push(e) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardrailTripwireError);
    // The input was judged by the process that made the answer: not again.
    expect(seen.input).toBe(0);
    const stored = await store.loadRun(runId);
    expect(stored.status).toBe("failed");
    expect(stored.error?.code).toBe("guardrail_tripwire");
    expect(events.filter((e) => e.type === "guardrail").map((e) => e.type === "guardrail" && e.name)).toEqual(
      ["no-passwords"],
    );
  });

  it("judge an approved call when a paused run resumes: a person's approval does not lift a guardrail", async () => {
    const ran: number[] = [];
    const transfer = tool({
      name: "transfer",
      description: "Moves money.",
      input: z.object({ amount: z.number() }),
      needsApproval: true,
      run: ({ amount }) => {
        ran.push(amount);
        return `moved ${amount}`;
      },
    });
    const { seen, guardrails } = counted();
    const model = new ScriptedModel([
      { toolCalls: [{ id: "big", name: "transfer", args: { amount: 5_000 } }] },
      { toolCalls: [{ id: "ok", name: "transfer", args: { amount: 900 } }] },
      { text: "Moved 900." },
    ]);
    const agent = new Agent({ model, store, tools: [transfer], guardrails });
    const paused = (await agent.run("move 5000").catch((e: unknown) => e)) as ApprovalRequiredError;
    expect(paused).toBeInstanceOf(ApprovalRequiredError);
    expect(seen).toEqual({ input: 1, before: [] });

    // Resumed in "another process": the same agent definition, a fresh object.
    const resumed = new Agent({ model, store, tools: [transfer], guardrails });
    const result = await resumed.resume(paused.runId, { approve: ["big"], onApproval: () => true });
    expect(result.output).toBe("Moved 900.");
    expect(ran).toEqual([900]);
    expect(seen).toEqual({ input: 1, before: ["big", "ok"] });
    const refused = result.messages.find((m) => m.role === "tool" && m.toolCallId === "big");
    expect(refused).toMatchObject({ content: "At most 1000 per transfer.", isError: true });
    expectEveryCallAnswered(result.messages);
    expect((await store.loadRun(paused.runId)).status).toBe("ok");
  });
});
