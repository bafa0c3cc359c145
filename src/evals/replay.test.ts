import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type Model } from "glassloop";
import { FunctionModel, ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { dataset } from "./dataset.js";
import { defineEval } from "./define.js";
import { evaluate } from "./evaluate.js";
import { EvalReplayError, replayEval } from "./replay.js";
import { judge } from "./scorers/judge.js";
import { exact } from "./scorers/text.js";

const echo = new FunctionModel((r) => {
  const last = r.messages.at(-1);
  return { text: last?.role === "user" ? last.content.toUpperCase() : "?" };
});
const cases = dataset<string>("shout", [
  { id: "a", input: "hi", expected: "HI" },
  { id: "b", input: "yo", expected: "YO" },
]);

function shoutEval(rubric: string, instructions = "Shout it back.") {
  return defineEval({
    agent: ({ model }: { model?: Model }) => new Agent({ instructions, model: model as Model }),
    dataset: cases,
    scorers: [
      exact(),
      judge({
        rubric,
        // Never called in a replay: the recorded judge answers come from the judge trace.
        model: new ScriptedModel([
          { toolCalls: [{ name: "final_result", args: { score: 1, reason: "loud" } }] },
          { toolCalls: [{ name: "final_result", args: { score: 1, reason: "loud" } }] },
        ]),
      }),
    ],
    concurrency: 1,
  });
}

async function record(): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), "glassloop-replay-"));
  await evaluate({ ...shoutEval("Is it loud?"), model: echo, outDir });
  return outDir;
}

describe("replayEval: an eval as an offline regression test", () => {
  it("replays agent and judge answers from the recording, with the same scores", async () => {
    const recording = await record();
    const replayed = await replayEval(shoutEval("Is it loud?"), recording);
    expect(replayed.summary.passed).toBe(2);
    expect(replayed.cases[0]?.trials[0]?.scores.map((s) => s.reason)).toEqual(['equals "HI"', "loud"]);
  });

  it("fails at the judge's request when the rubric changed, naming the case", async () => {
    const recording = await record();
    const error = (await replayEval(shoutEval("Is it polite?"), recording).catch(
      (e: unknown) => e,
    )) as EvalReplayError;
    expect(error).toBeInstanceOf(EvalReplayError);
    expect(error.caseId).toBe("a");
    expect(error.kind).toBe("request");
    expect(error.message).toContain(
      `case "a" (repeat 1): the judge scorer's request differs from the recording at model call 1, messages[0].content`,
    );
    expect(error.message).toMatch(/- recorded: "Rubric:\\nIs it loud\?/);
    expect(error.message).toMatch(/\+ now: +"Rubric:\\nIs it polite\?/);
  });

  it("fails at the first case whose agent request differs, with the diff", async () => {
    const recording = await record();
    const error = (await replayEval(shoutEval("Is it loud?", "Whisper it back."), recording).catch(
      (e: unknown) => e,
    )) as EvalReplayError;
    expect(error.kind).toBe("request");
    expect(error.message).toContain(
      'case "a" (repeat 1): the agent\'s request differs from the recording at model call 1, instructions',
    );
    expect(error.message).toContain('- recorded: "Shout it back."');
    expect(error.message).toContain('+ now:      "Whisper it back."');
  });

  it("fails when a scorer now scores differently, and when a case is not in the recording", async () => {
    const recording = await record();
    const stricter = {
      ...shoutEval("Is it loud?"),
      scorers: [exact<unknown, string>("NOPE"), shoutEval("Is it loud?").scorers[1]!],
    };
    const changed = (await replayEval(stricter, recording).catch((e: unknown) => e)) as EvalReplayError;
    expect(changed.kind).toBe("scores");
    expect(changed.message).toContain('case "a" (repeat 1): scores changed from the recording');
    expect(changed.message).toContain('exact: 1.00 (pass) → 0.00 (fail): "HI" is not "NOPE"');
    const more = {
      ...shoutEval("Is it loud?"),
      dataset: dataset<string>("shout", [...cases.cases, { id: "c", input: "hey" }]),
    };
    const missing = (await replayEval(more, recording).catch((e: unknown) => e)) as EvalReplayError;
    expect(missing.kind).toBe("missing");
    expect(missing.message).toMatch(/case "c" is not in the recording/);
  });
});
