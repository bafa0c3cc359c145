import { Agent, LoopDetectedError, tool } from "glassloop";
import { ScriptedModel, type ScriptStep } from "glassloop/testing";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { capture, expectEveryCallAnswered, ofType } from "../helpers/core.js";

function lookupTool() {
  const run = vi.fn(({ q }: { q: string; page?: number }) => `result for ${q}`);
  const t = tool({
    name: "lookup",
    description: "Looks up.",
    input: z.object({ q: z.string(), page: z.number().optional() }),
    run,
  });
  return { run, tool: t };
}
const lookup = (args: Record<string, unknown> | string, id?: string): ScriptStep => ({
  toolCalls: [{ name: "lookup", args, ...(id && { id }) }],
});
const repeatedNote = (earlier: string) =>
  "You already called lookup with these exact arguments in the previous step. " +
  `Do not repeat the call; use its result or try something different. Its result was: ${earlier}`;

describe("the loop guard", () => {
  it("answers an identical call in the next turn with the earlier result instead of running it", async () => {
    const { run, tool: t } = lookupTool();
    const model = new ScriptedModel([lookup({ q: "x" }, "c1"), lookup({ q: "x" }, "c2"), { text: "done" }]);
    const { result, events } = await capture((onEvent) =>
      new Agent({ model, tools: [t] }).run("go", { onEvent }),
    );
    expect(run).toHaveBeenCalledTimes(1);
    expect(result?.output).toBe("done");
    expect(model.requests[2]?.messages.at(-1)).toEqual({
      role: "tool",
      toolCallId: "c2",
      toolName: "lookup",
      content: repeatedNote("result for x"),
      isError: true,
    });
    expect(ofType(events, "tool_result").map((e) => e.status)).toEqual(["ok", "repeated"]);
  });

  it("keeps the note within the result size limit, cutting only the repeated result", async () => {
    const big = tool({
      name: "lookup",
      description: "d",
      input: z.object({ q: z.string() }),
      run: () => "r".repeat(500),
    });
    const model = new ScriptedModel([lookup({ q: "x" }), lookup({ q: "x" }), { text: "done" }]);
    await new Agent({ model, tools: [big], environment: { maxResultChars: 300 } }).run("go");
    const note = model.requests[2]?.messages.at(-1)?.content ?? "";
    expect(note.startsWith(repeatedNote(""))).toBe(true);
    expect(note).toMatch(/\n\[truncated: [\d,]+ of [\d,]+ characters cut\]$/);
    expect(note.length).toBeLessThan(300 + 50);
  });

  it("treats the same arguments in another key order or spacing as the same call", async () => {
    const { run, tool: t } = lookupTool();
    const model = new ScriptedModel([
      lookup('{"q":"x","page":2}'),
      lookup('{ "page": 2, "q": "x" }'),
      { text: "done" },
    ]);
    await new Agent({ model, tools: [t] }).run("go");
    expect(run).toHaveBeenCalledTimes(1);
  });

  it("runs a call again when the arguments differ or the repeat is not in the next turn", async () => {
    const { run, tool: t } = lookupTool();
    const model = new ScriptedModel([
      lookup({ q: "x" }),
      lookup({ q: "y" }),
      lookup({ q: "x" }),
      lookup({ q: "x", page: 2 }),
      { text: "done" },
    ]);
    await new Agent({ model, tools: [t] }).run("go");
    expect(run.mock.calls.map(([args]) => args)).toEqual([
      { q: "x" },
      { q: "y" },
      { q: "x" },
      { q: "x", page: 2 },
    ]);
  });

  it("repeats an earlier error result too", async () => {
    let n = 0;
    const flaky = tool({
      name: "lookup",
      description: "d",
      input: z.object({ q: z.string() }),
      run: () => {
        n++;
        throw new Error("boom");
      },
    });
    const model = new ScriptedModel([lookup({ q: "x" }), lookup({ q: "x" }), { text: "done" }]);
    await new Agent({ model, tools: [flaky] }).run("go");
    expect(n).toBe(1);
    expect(model.requests[2]?.messages.at(-1)?.content).toBe(
      repeatedNote("Tool lookup failed with an internal error."),
    );
  });

  it("ends the run with LoopDetectedError past maxRepeats (default 2), with the full transcript", async () => {
    const { run, tool: t } = lookupTool();
    const model = new ScriptedModel([
      lookup({ q: "x" }, "c1"),
      lookup({ q: "x" }, "c2"),
      lookup({ q: "x" }, "c3"),
      lookup({ q: "x" }, "c4"),
    ]);
    const { error, events } = await capture((onEvent) =>
      new Agent({ instructions: "Look things up.", model, tools: [t] }).run("go", { onEvent }),
    );
    expect(run).toHaveBeenCalledTimes(1);
    expect(error).toBeInstanceOf(LoopDetectedError);
    const e = error as LoopDetectedError;
    expect(e.code).toBe("loop_detected");
    expect(e.toolName).toBe("lookup");
    expect(e.repeats).toBe(4);
    expect(e.message).toBe(
      "Loop detected: the model requested lookup with identical arguments 4 times in a row",
    );
    expect(e.messages.map((m) => m.role)).toEqual([
      "system",
      "user",
      ...Array.from({ length: 4 }, () => ["assistant", "tool"]).flat(),
    ]);
    expect(e.messages.at(-1)).toMatchObject({ toolCallId: "c4", content: repeatedNote("result for x") });
    expectEveryCallAnswered(e.messages);
    expect(e.usage.requests).toBe(4);
    expect(e.usage.toolCalls).toBe(1);
    expect(events.at(-1)).toMatchObject({ type: "run_end", status: "failed" });
  });

  it("takes maxRepeats from the agent", async () => {
    const { tool: t } = lookupTool();
    const model = new ScriptedModel([lookup({ q: "x" }), lookup({ q: "x" })]);
    const { error } = await capture(() =>
      new Agent({ model, tools: [t], loopGuard: { maxRepeats: 0 } }).run("go"),
    );
    expect(error).toBeInstanceOf(LoopDetectedError);
    expect((error as LoopDetectedError).repeats).toBe(2);
  });

  it("gives the turn's other calls a result when it ends the run", async () => {
    const { tool: t } = lookupTool();
    const other = tool({ name: "other", description: "d", input: z.object({}), run: vi.fn(() => "o") });
    const model = new ScriptedModel([
      lookup({ q: "x" }),
      {
        toolCalls: [
          { id: "rep", name: "lookup", args: { q: "x" } },
          { id: "o", name: "other", args: {} },
        ],
      },
    ]);
    const { error } = await capture(() =>
      new Agent({ model, tools: [t, other], loopGuard: { maxRepeats: 0 } }).run("go"),
    );
    expect(error).toBeInstanceOf(LoopDetectedError);
    const e = error as LoopDetectedError;
    expect(e.messages.at(-1)).toMatchObject({
      toolCallId: "o",
      content: "Not executed: the run stopped (loop detected).",
      isError: true,
    });
    expectEveryCallAnswered(e.messages);
  });

  it("can be turned off: every call runs", async () => {
    const { run, tool: t } = lookupTool();
    const steps = Array.from({ length: 6 }, () => lookup({ q: "x" }));
    const model = new ScriptedModel([...steps, { text: "done" }]);
    const result = await new Agent({ model, tools: [t], loopGuard: false }).run("go");
    expect(run).toHaveBeenCalledTimes(6);
    expect(result.output).toBe("done");
  });
});

describe("loop guard options", () => {
  it.each([-1, 1.5, Number.NaN])("refuses maxRepeats %s at construction", (maxRepeats) => {
    expect(() => new Agent({ model: new ScriptedModel([]), loopGuard: { maxRepeats } })).toThrowError(
      `loopGuard.maxRepeats must be a whole number >= 0, got ${maxRepeats}`,
    );
  });
});
