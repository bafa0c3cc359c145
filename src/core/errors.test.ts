import { describe, expect, it } from "vitest";
import { ApprovalRequiredError } from "../features/approval/approval.js";
import { emptyUsage } from "../loop/usage.js";
import { NetworkError } from "../models/errors.js";
import {
  BudgetExceededError,
  ConfigError,
  GlassloopError,
  LoopDetectedError,
  ModelCallError,
  RunAbortedError,
  RunError,
  runStatusOf,
} from "./errors.js";

const state = { runId: "r1", messages: [], usage: emptyUsage(false) };

describe("runStatusOf, the one error-to-status mapping", () => {
  it("names a budget stop, an abort and an approval pause by their own status", () => {
    expect(runStatusOf(new BudgetExceededError("maxSteps", 3, 3, state))).toBe("budget_exceeded");
    expect(runStatusOf(new RunAbortedError(state))).toBe("aborted");
    expect(runStatusOf(new ApprovalRequiredError([], state))).toBe("awaiting_approval");
  });

  it("calls every other ending failed, a foreign exception and a non-error included", () => {
    expect(runStatusOf(new LoopDetectedError("add", 3, state))).toBe("failed");
    expect(runStatusOf(new ModelCallError(new NetworkError("down", { provider: "openai" }), state))).toBe(
      "failed",
    );
    expect(runStatusOf(new RunError("internal", "boom", state))).toBe("failed");
    expect(runStatusOf(new ConfigError("bad"))).toBe("failed");
    expect(runStatusOf(new TypeError("x is undefined"))).toBe("failed");
    expect(runStatusOf("a thrown string")).toBe("failed");
  });

  it("follows the code, so a wrapped budget stop (an evaluator's) still reads as one", () => {
    const wrapped = new RunError("budget_exceeded", "The evaluator failed: budget", state);
    expect(runStatusOf(wrapped)).toBe("budget_exceeded");
    expect(wrapped).toBeInstanceOf(GlassloopError);
  });
});
