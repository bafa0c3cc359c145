import { Agent, type AgentEvent, RunAbortedError, tool } from "glassloop";
import { FunctionModel, ScriptedModel } from "glassloop/testing";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { capture, expectEveryCallAnswered, ofType } from "../helpers/core.js";

/** Runs `agent`, aborting as soon as `when` sees the matching event; returns what happened. */
async function abortWhen(
  agent: Agent<undefined, string>,
  when: (event: AgentEvent) => boolean,
  reason: unknown = new Error("user pressed stop"),
) {
  const controller = new AbortController();
  let abortedAt = 0;
  const captured = await capture((onEvent) =>
    agent.run("go", {
      signal: controller.signal,
      onEvent: (event) => {
        onEvent(event);
        if (!controller.signal.aborted && when(event)) {
          // Abort from outside the loop's own call stack, as a user would.
          setTimeout(() => {
            abortedAt = performance.now();
            controller.abort(reason);
          }, 5);
        }
      },
    }),
  );
  const latencyMs = performance.now() - abortedAt;
  expect(captured.result).toBeUndefined();
  expect(captured.error).toBeInstanceOf(RunAbortedError);
  const error = captured.error as RunAbortedError;
  expect(error.code).toBe("aborted");
  expect(error.cause).toBe(reason);
  expectEveryCallAnswered(error.messages);
  expect(captured.events.at(-1)).toMatchObject({ type: "run_end", status: "aborted" });
  expect(ofType(captured.events, "error")).toMatchObject([
    { code: "aborted", message: "The run was aborted" },
  ]);
  return { error, events: captured.events, latencyMs };
}

describe("aborting a run", () => {
  it("during a model call ends it promptly with RunAbortedError", async () => {
    const model = new ScriptedModel([{ text: "never", delayMs: Number.POSITIVE_INFINITY }]);
    const { error, latencyMs, events } = await abortWhen(
      new Agent({ instructions: "Be brief.", model }),
      (e) => e.type === "model_request",
    );
    expect(latencyMs).toBeLessThan(200);
    expect(error.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "go" },
    ]);
    expect(events.map((e) => e.type)).toEqual([
      "run_start",
      "step_start",
      "model_request",
      "step_end",
      "error",
      "run_end",
    ]);
  });

  it("during a model call that ignores the signal", async () => {
    const model = new FunctionModel(() => new Promise(() => {}));
    const { latencyMs } = await abortWhen(new Agent({ model }), (e) => e.type === "model_request");
    expect(latencyMs).toBeLessThan(200);
  });

  it("during tools: calls in flight and queued all get 'aborted' results, signals fire", async () => {
    const signals: AbortSignal[] = [];
    const polite = vi.fn(
      (_args: object, { signal }: { signal: AbortSignal }) =>
        new Promise((_, reject) => {
          signals.push(signal);
          signal.addEventListener("abort", () => reject(signal.reason));
        }),
    );
    const stubborn = vi.fn((_args: object, { signal }: { signal: AbortSignal }) => {
      signals.push(signal);
      return new Promise(() => {});
    });
    const queued = vi.fn(() => "ran");
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "p", name: "polite", args: {} },
          { id: "s", name: "stubborn", args: {} },
          { id: "q", name: "queued", args: {} },
        ],
      },
      { text: "never" },
    ]);
    const agent = new Agent({
      model,
      tools: [
        tool({ name: "polite", description: "d", input: z.object({}), run: polite }),
        tool({ name: "stubborn", description: "d", input: z.object({}), run: stubborn }),
        tool({ name: "queued", description: "d", input: z.object({}), run: queued }),
      ],
      environment: { concurrency: 2 },
    });
    const { error, latencyMs, events } = await abortWhen(agent, (e) => e.type === "tool_call");
    expect(latencyMs).toBeLessThan(200);
    expect(queued).not.toHaveBeenCalled();
    expect(signals).toHaveLength(2);
    for (const signal of signals) expect(signal.aborted).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect(error.messages.filter((m) => m.role === "tool")).toEqual(
      ["p", "s", "q"].map((id, i) => ({
        role: "tool",
        toolCallId: id,
        toolName: ["polite", "stubborn", "queued"][i],
        content: `Tool ${["polite", "stubborn", "queued"][i]} was aborted: the run was stopped.`,
        isError: true,
      })),
    );
    expect(ofType(events, "tool_result").map((e) => e.status)).toEqual(["aborted", "aborted", "aborted"]);
  });

  it("between steps: the next model call is never made", async () => {
    const t = tool({ name: "t", description: "d", input: z.object({}), run: () => "ok" });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "t", args: {} }], delayMs: 20 },
      { text: "never" },
    ]);
    const controller = new AbortController();
    const { error } = await capture((onEvent) =>
      new Agent({ model, tools: [t] }).run("go", {
        signal: controller.signal,
        onEvent: (event) => {
          onEvent(event);
          if (event.type === "tool_result") controller.abort();
        },
      }),
    );
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(model.requests).toHaveLength(1);
    expect(error?.messages.at(-1)).toMatchObject({ role: "tool", content: "ok" });
  });

  it("with a signal already aborted never calls the model", async () => {
    const model = new ScriptedModel([{ text: "never" }]);
    const { error, events } = await capture((onEvent) =>
      new Agent({ model }).run("go", { signal: AbortSignal.abort("nope"), onEvent }),
    );
    expect(error).toBeInstanceOf(RunAbortedError);
    expect(error?.cause).toBe("nope");
    expect(model.requests).toHaveLength(0);
    expect(events.map((e) => e.type)).toEqual(["run_start", "error", "run_end"]);
  });

  it("ends a stream the same way: the result rejects and run_end says aborted", async () => {
    const model = new ScriptedModel([{ text: "never", delayMs: Number.POSITIVE_INFINITY }]);
    const controller = new AbortController();
    const stream = new Agent({ model }).stream("go", { signal: controller.signal });
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "model_request") controller.abort();
    }
    await expect(stream.result).rejects.toBeInstanceOf(RunAbortedError);
    expect(types.at(-1)).toBe("run_end");
  });

  it("leaving a stream (break out of for await) aborts the run: no more model or tool calls", async () => {
    const runs: string[] = [];
    const slow = tool({
      name: "slow",
      description: "d",
      input: z.object({ n: z.number() }),
      run: ({ n }, { signal }) =>
        new Promise((resolve, reject) => {
          runs.push(`start ${n}`);
          const timer = setTimeout(() => resolve(`done ${n}`), 50);
          signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(signal.reason);
          });
        }),
    });
    const model = new FunctionModel((_req, i) => ({ toolCalls: [{ name: "slow", args: { n: i } }] }));
    const stream = new Agent({ model, tools: [slow], limits: { maxSteps: 50 } }).stream("go");
    for await (const event of stream) {
      if (event.type === "tool_call") break;
    }
    const error = await stream.result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunAbortedError);
    const aborted = error as RunAbortedError;
    expect(String(aborted.cause)).toContain("stopped reading the stream");
    // Invariant 1: the call in flight got its "aborted" result.
    expectEveryCallAnswered(aborted.messages);
    expect(aborted.messages.at(-1)).toMatchObject({
      role: "tool",
      content: "Tool slow was aborted: the run was stopped.",
      isError: true,
    });
    const requests = model.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(model.requests).toHaveLength(requests);
    expect(requests).toBe(1);
    expect(runs).toEqual(["start 0"]);
  });

  it("leaving a stream after its run ended changes nothing", async () => {
    const stream = new Agent({ model: new ScriptedModel([{ text: "done" }]) }).stream("go");
    for await (const event of stream) if (event.type === "run_end") break;
    await expect(stream.result).resolves.toMatchObject({ output: "done" });
  });

  it("after the run ended changes nothing", async () => {
    const controller = new AbortController();
    const result = await new Agent({ model: new ScriptedModel([{ text: "done" }]) }).run("go", {
      signal: controller.signal,
    });
    controller.abort();
    expect(result.output).toBe("done");
  });
});
