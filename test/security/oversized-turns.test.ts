// A hostile model sends arguments far over the size limit, or thousands of calls
// in one answer. The refusal must not keep the bytes (memory, the next request, the store), one
// answer's calls are capped, and checkpointing a turn costs O(calls), not O(calls²).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Agent, type Store, tool } from "glassloop";
import { SqliteStore } from "glassloop/store";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { runCli, tempCwd, useWireServer } from "../helpers/cli.js";
import { chatSse, sentBody } from "../helpers/openai-replies.js";

const wire = useWireServer("sk-test-oversized-0000");

type Sent = {
  messages: { role: string; content?: string | null; tool_calls?: { function: { arguments: string } }[] }[];
};

/** Bytes of the database and its WAL. */
const dbBytes = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith("glassloop.db"))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);

describe("oversized arguments, driven through glassloop run with its store", () => {
  it("a 2 MB argument is refused and replaced by a marker: not re-sent, not stored", async () => {
    const huge = JSON.stringify({ expression: `1+${"1".repeat(2_000_000)}` });
    wire.server.enqueue(
      chatSse({ toolCalls: [{ id: "call_huge", name: "calculator", arguments: huge }] }),
      chatSse({ text: "Sorry." }),
    );
    const cwd = tempCwd();
    const run = await runCli(["run", "--tools", "calculator", "Add the ones"], { cwd, env: wire.env() });
    expect(run.code).toBe(0);
    expect(wire.server.requests[1]?.raw.length).toBeLessThan(10_000);
    const messages = sentBody<Sent>(wire.server.requests, 1).messages;
    const assistant = messages.find((m) => m.role === "assistant");
    const feedback = `Arguments for calculator are ${huge.length} characters; the limit is 10000. Send shorter arguments.`;
    expect(JSON.parse(assistant?.tool_calls?.[0]?.function.arguments ?? "")).toEqual({
      glassloop_omitted: feedback,
    });
    expect(messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_huge", content: feedback });
    // Today the database and its WAL hold the 2 MB (twice: transcript and checkpoint).
    expect(dbBytes(join(cwd, ".glassloop"))).toBeLessThan(1_000_000);
  });

  it("an answer with 300 calls runs 128 of them; the rest are refused, their arguments not kept", async () => {
    const calls = Array.from({ length: 300 }, (_, i) => ({
      id: `call_${i}`,
      name: "calculator",
      arguments: JSON.stringify({ expression: `${i} + 1` }),
    }));
    wire.server.enqueue(chatSse({ toolCalls: calls }), chatSse({ text: "Done." }));
    const run = await runCli(["run", "--tools", "calculator", "Count"], { cwd: tempCwd(), env: wire.env() });
    expect(run.code).toBe(0);
    const messages = sentBody<Sent>(wire.server.requests, 1).messages;
    const results = messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results).toHaveLength(300);
    expect(results.slice(0, 128)).toEqual(Array.from({ length: 128 }, (_, i) => String(i + 1)));
    const refusal =
      "Not run: this answer made 300 tool calls and at most 128 run per answer. Make the rest in your next answer.";
    expect(new Set(results.slice(128))).toEqual(new Set([refusal]));
    const kept = messages.find((m) => m.role === "assistant")?.tool_calls ?? [];
    expect(kept[127]?.function.arguments).toBe(JSON.stringify({ expression: "127 + 1" }));
    expect(kept[128]?.function.arguments).toBe(JSON.stringify({ glassloop_omitted: refusal }));
  });
});

describe("checkpointing a turn is linear in its calls", () => {
  const echo = tool({
    name: "echo",
    description: "Echoes.",
    input: z.object({ text: z.string() }),
    run: ({ text }) => text,
  });

  /** Bytes a durable run hands the store in checkpoints, for one turn of `n` calls (then a second turn of n). */
  async function checkpointBytes(n: number): Promise<number> {
    const store = new SqliteStore({ path: ":memory:" });
    let bytes = 0;
    const counting = new Proxy(store, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (key === "checkpoint") {
          return (runId: string, checkpoint: Parameters<Store["checkpoint"]>[1]) => {
            const { messages, persisted, ...rest } = checkpoint;
            bytes += JSON.stringify(messages.slice(persisted)).length + JSON.stringify(rest).length;
            return target.checkpoint(runId, checkpoint);
          };
        }
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const turn = (offset: number) => ({
      toolCalls: Array.from({ length: n }, (_, i) => ({
        name: "echo",
        args: { text: `call ${offset + i} ${"x".repeat(60)}` },
      })),
    });
    const agent = new Agent({
      model: new ScriptedModel([turn(0), turn(n), { text: "done" }]),
      tools: [echo],
      store: counting,
      environment: { maxToolCallsPerTurn: 1_000 },
      limits: { maxSteps: 5 },
    });
    const result = await agent.run("Echo a lot");
    expect(result.output).toBe("done");
    store.close();
    return bytes;
  }

  it("tripling the calls of a turn triples the bytes checkpointed (quadratic would be nine times)", async () => {
    const small = await checkpointBytes(40);
    const large = await checkpointBytes(120);
    // Measured: before the fix 2,057,523 vs 17,937,454 bytes (8.7×); after 142,841 vs 428,323 (3.0×).
    expect(large / small).toBeLessThan(4);
  });
});
