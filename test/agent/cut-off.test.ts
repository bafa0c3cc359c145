import { Agent, ModelBehaviorError, ToolRegistry, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { capture, expectEveryCallAnswered, ofType, resultOf } from "../helpers/core.js";

const Answer = z.object({ answer: z.number() });

describe("a cut-off response is never the output", () => {
  it("final_result in a response cut off at the token limit is feedback, and the next answer is the output", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ id: "cut", name: "final_result", args: { answer: 4 } }], finishReason: "length" },
      { toolCalls: [{ id: "whole", name: "final_result", args: { answer: 420 } }] },
    ]);
    const { result, events } = await capture((onEvent) =>
      new Agent({ model, output: Answer }).run("x", { onEvent }),
    );
    expect(result?.output).toEqual({ answer: 420 });
    const cut = resultOf(result?.messages ?? [], "cut");
    expect(cut).toMatchObject({ isError: true });
    expect(cut.content).toMatch(/^Not executed: your response was cut off at the output token limit/);
    expect(ofType(events, "tool_result").map((e) => [e.toolCallId, e.status])).toEqual([
      ["cut", "not_executed"],
      ["whole", "ok"],
    ]);
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: "tool", toolCallId: "cut" });
    expectEveryCallAnswered(result?.messages ?? []);
  });

  it("a terminal tool in a response stopped by the content filter does not run, nor do the turn's other calls", async () => {
    const finish = vi.fn(({ summary }: { summary: string }) => `finished: ${summary}`);
    const other = vi.fn(() => "ran");
    const registry = new ToolRegistry()
      .register(tool({ name: "note", description: "Notes.", input: z.object({}), run: other }))
      .register(
        tool({ name: "finish", description: "Ends.", input: z.object({ summary: z.string() }), run: finish }),
        { terminal: true },
      );
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "n", name: "note", args: {} },
          { id: "f1", name: "finish", args: { summary: "partial" } },
        ],
        finishReason: "content_filter",
      },
      { toolCalls: [{ id: "f2", name: "finish", args: { summary: "done" } }] },
    ]);
    const result = await new Agent({ model, tools: registry }).run("x");
    expect(result.output).toBe("finished: done");
    expect(finish).toHaveBeenCalledTimes(1);
    expect(finish).toHaveBeenCalledWith({ summary: "done" }, expect.anything());
    expect(other).not.toHaveBeenCalled();
    expect(resultOf(result.messages, "f1").content).toMatch(/stopped by the provider's content filter/);
    expect(resultOf(result.messages, "n").content).toMatch(/^Not executed:/);
  });

  it("cut-off final_result answers spend the retry budget", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "final_result", args: { answer: 1 } }], finishReason: "length" },
      { toolCalls: [{ name: "final_result", args: { answer: 2 } }], finishReason: "length" },
    ]);
    const error = await new Agent({ model, output: Answer, limits: { maxRetries: 1 } })
      .run("x")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelBehaviorError);
    expect((error as ModelBehaviorError).message).toContain("cut off at the output token limit");
    expectEveryCallAnswered((error as ModelBehaviorError).messages);
  });

  it("calls of plain tools in a cut-off response still run (only an ending is refused)", async () => {
    const other = vi.fn(() => "ran");
    const model = new ScriptedModel([
      { toolCalls: [{ id: "n", name: "note", args: {} }], finishReason: "length" },
      { text: "done" },
    ]);
    const note = tool({ name: "note", description: "Notes.", input: z.object({}), run: other });
    const result = await new Agent({ model, tools: [note] }).run("x");
    expect(result.output).toBe("done");
    expect(other).toHaveBeenCalledTimes(1);
  });
});
