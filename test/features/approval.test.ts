import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Agent,
  type AgentEvent,
  ApprovalNotWaitingError,
  ApprovalRequiredError,
  RunNotResumableError,
  SessionBusyError,
  tool,
} from "glassloop";
import { SqliteStore } from "glassloop/store";
import { ScriptedModel } from "glassloop/testing";
import { NOT_APPROVED } from "glassloop/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";

let dir: string;
let store: SqliteStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "glassloop-approval-"));
  store = new SqliteStore({ path: join(dir, "g.db") });
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

function tools(ran: string[]) {
  const transfer = tool({
    name: "transfer",
    description: "Moves money.",
    input: z.object({ amount: z.number() }),
    // Small amounts go through; anything above 100 needs a person.
    needsApproval: ({ amount }) => amount > 100,
    run: ({ amount }) => {
      ran.push(`transfer ${amount}`);
      return `moved ${amount}`;
    },
  });
  const wipe = tool({
    name: "wipe",
    description: "Deletes everything.",
    input: z.object({}),
    needsApproval: true,
    run: () => {
      ran.push("wipe");
      return "wiped";
    },
  });
  return [transfer, wipe];
}

function script() {
  return new ScriptedModel([
    {
      toolCalls: [
        { id: "small", name: "transfer", args: { amount: 5 } },
        { id: "big", name: "transfer", args: { amount: 500 } },
        { id: "wipe", name: "wipe", args: {} },
      ],
    },
    { text: "done" },
  ]);
}

describe("human approval", () => {
  it("pauses before any call of the turn runs, persisted; resume with decisions runs or refuses them", async () => {
    const ran: string[] = [];
    const model = script();
    const agent = new Agent({ model, tools: tools(ran), store });
    const events: AgentEvent[] = [];
    const paused = await agent.run("Pay and clean up", { onEvent: (e) => events.push(e) }).catch((e) => e);
    expect(paused).toBeInstanceOf(ApprovalRequiredError);
    const error = paused as ApprovalRequiredError;
    expect(error.pending).toEqual([
      { toolCallId: "big", toolName: "transfer", arguments: '{"amount":500}' },
      { toolCallId: "wipe", toolName: "wipe", arguments: "{}" },
    ]);
    expect(ran).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: "run_end", status: "awaiting_approval" });
    expect(events.some((e) => e.type === "error")).toBe(false);
    const stored = await store.loadRun(error.runId);
    expect(stored.status).toBe("awaiting_approval");
    expect(stored.progress.pending.map((p) => [p.call.id, p.state])).toEqual([
      ["small", "queued"],
      ["big", "awaiting_approval"],
      ["wipe", "awaiting_approval"],
    ]);

    // Every waiting call must be decided, by its id.
    await expect(agent.resume(error.runId, { approve: ["big"] })).rejects.toThrow(
      /wipe need approve or reject/,
    );
    await expect(
      agent.resume(error.runId, { approve: ["nope"], reject: ["big", "wipe"] }),
    ).rejects.toBeInstanceOf(ApprovalNotWaitingError);

    // A fresh agent instance (say, after a restart) continues it.
    const again = new Agent({ model, tools: tools(ran), store });
    const result = await again.resume(error.runId, { approve: ["big"], reject: ["wipe"] });
    expect(ran).toEqual(["transfer 5", "transfer 500"]);
    expect(result.output).toBe("done");
    const results = result.messages.filter((m) => m.role === "tool");
    expect(results.map((m) => m.content)).toEqual(["moved 5", "moved 500", NOT_APPROVED]);
    expect(results[2]?.isError).toBe(true);
    expect(result.messages.filter((m) => m.role === "assistant")).toHaveLength(2);
    await expect(again.resume(error.runId)).rejects.toBeInstanceOf(RunNotResumableError);
  });

  it("resume with onApproval asks it about the waiting calls approve and reject leave out", async () => {
    const ran: string[] = [];
    const model = script();
    const agent = new Agent({ model, tools: tools(ran), store });
    const error = (await agent.run("Pay and clean up").catch((e) => e)) as ApprovalRequiredError;
    expect(error).toBeInstanceOf(ApprovalRequiredError);

    // Without a list entry or a handler the waiting call is still refused, and nothing ran.
    await expect(agent.resume(error.runId, { reject: ["big"] })).rejects.toThrow(
      /wipe need approve or reject \(or pass onApproval/,
    );
    expect(ran).toEqual([]);

    const asked: string[] = [];
    const result = await agent.resume(error.runId, {
      // The list wins for the call it names; the handler would have approved it.
      reject: ["big"],
      onApproval: (call) => {
        asked.push(call.toolCallId);
        return true;
      },
    });
    expect(asked).toEqual(["wipe"]);
    expect(ran).toEqual(["transfer 5", "wipe"]);
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "moved 5",
      NOT_APPROVED,
      "wiped",
    ]);
    expect((await store.loadRun(error.runId)).status).not.toBe("awaiting_approval");
  });

  it("resume with only onApproval decides every waiting call by it", async () => {
    const ran: string[] = [];
    const agent = new Agent({ model: script(), tools: tools(ran), store });
    const error = (await agent.run("Pay").catch((e) => e)) as ApprovalRequiredError;
    const asked: string[] = [];
    const result = await agent.resume(error.runId, {
      onApproval: (call) => {
        asked.push(call.toolCallId);
        return call.toolName === "transfer";
      },
    });
    expect(asked).toEqual(["big", "wipe"]);
    expect(ran).toEqual(["transfer 5", "transfer 500"]);
    expect(result.output).toBe("done");
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "moved 5",
      "moved 500",
      NOT_APPROVED,
    ]);
  });

  it("decides in-process with onApproval, without pausing or a store", async () => {
    const ran: string[] = [];
    const agent = new Agent({ model: script(), tools: tools(ran) });
    const asked: string[] = [];
    const result = await agent.run("Pay", {
      onApproval: (call) => {
        asked.push(`${call.toolName} ${call.arguments}`);
        return call.toolName === "transfer";
      },
    });
    expect(asked).toEqual(['transfer {"amount":500}', "wipe {}"]);
    expect(ran).toEqual(["transfer 5", "transfer 500"]);
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "moved 5",
      "moved 500",
      NOT_APPROVED,
    ]);
  });

  it("a paused session run holds its session until it is resumed", async () => {
    const ran: string[] = [];
    const agent = new Agent({ model: script(), tools: tools(ran), store });
    const error = (await agent.run("Pay", { session: "s" }).catch((e) => e)) as ApprovalRequiredError;
    expect(error).toBeInstanceOf(ApprovalRequiredError);
    await expect(agent.run("Other", { session: "s" })).rejects.toBeInstanceOf(SessionBusyError);
    await expect(agent.run("Other", { session: "s" })).rejects.toMatchObject({
      holderState: "awaiting_approval",
    });
    await agent.resume(error.runId, { reject: ["big", "wipe"] });
    expect(ran).toEqual(["transfer 5"]);
    expect((await store.readSession("s")).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "tool",
      "tool",
      "assistant",
    ]);
  });
});
