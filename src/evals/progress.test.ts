import { describe, expect, it } from "vitest";
import { terminalText } from "../cli/terminal-text.js";
import { ProgressBar } from "./progress.js";
import type { TrialRecord } from "./types.js";

const trial = (pass: boolean) => ({ pass }) as TrialRecord;

describe("the progress bar", () => {
  it("draws trials, passes and dollars on a terminal, and clears itself", () => {
    const written: string[] = [];
    // What the terminal receives: the bar writes through the CLI's terminal stream.
    const bar = new ProgressBar({
      isTTY: true,
      columns: 60,
      write: (t) => written.push(terminalText(t, {})),
    });
    bar.onEvent({ type: "eval_start", id: "e", name: "n", trials: 4 });
    bar.onEvent({
      type: "trial_end",
      caseId: "a",
      repeat: 1,
      trial: trial(true),
      done: 1,
      total: 4,
      spentUsd: 0.0123,
    });
    expect(written.at(-1)).toMatch(/█{5}░{15} 1\/4 trials · 1 passed · \$0\.0123$/);
    bar.clear();
    expect(written.at(-1)).toBe("\r\u001b[2K");
  });

  it("draws nothing off a terminal (a pipe, CI logs)", () => {
    const written: string[] = [];
    const bar = new ProgressBar({ isTTY: false, write: (t) => written.push(t) });
    bar.onEvent({ type: "eval_start", id: "e", name: "n", trials: 4 });
    bar.onEvent({
      type: "trial_end",
      caseId: "a",
      repeat: 1,
      trial: trial(true),
      done: 1,
      total: 4,
      spentUsd: 0,
    });
    bar.clear();
    expect(written).toEqual([]);
  });
});
