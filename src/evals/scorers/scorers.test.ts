import { resolveModel } from "glassloop";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ScoreContext, Trajectory, TrajectoryCall } from "../types.js";
import { scorer } from "./custom.js";
import { fields } from "./fields.js";
import { contains, exact, numeric, regex } from "./text.js";
import { maxCost, maxLatency } from "./thresholds.js";
import { maxSteps, noToolErrors, toolsCalled } from "./trajectory.js";

const call = (name: string, args: unknown, status: TrajectoryCall["status"] = "ok"): TrajectoryCall => ({
  runId: "run_1",
  step: 1,
  name,
  args,
  status,
  content: status === "ok" ? "fine" : "boom",
});

function context<TOutput, TExpected>(
  output: TOutput,
  expected?: TExpected,
  trajectory: Partial<Trajectory> = {},
): ScoreContext<TOutput, TExpected> {
  return {
    caseId: "c1",
    input: "question",
    output,
    expected,
    metadata: {},
    trajectory: {
      runIds: ["run_1"],
      calls: [],
      steps: 1,
      inputTokens: 0,
      outputTokens: 0,
      latencyMs: 10,
      ...trajectory,
    },
    signal: new AbortController().signal,
    services: { model: (m) => resolveModel(m), onEvent: () => {}, remainingUsd: () => undefined },
  };
}

describe("text scorers", () => {
  it("exact compares text with whitespace normalized, and objects as JSON", async () => {
    expect((await exact().score(context("  420 ", "420"))).pass).toBe(true);
    expect((await exact("Paris").score(context("paris"))).pass).toBe(false);
    expect((await exact("Paris", { ignoreCase: true }).score(context("paris"))).pass).toBe(true);
    expect((await exact().score(context({ a: 1 }, { a: 1 }))).pass).toBe(true);
    const miss = await exact().score(context("41", "42"));
    expect(miss).toEqual({ score: 0, pass: false, reason: '"41" is not "42"' });
    expect((await exact().score(context("x", undefined))).reason).toMatch(/nothing to compare/);
  });

  it("contains and regex look inside the output's text", async () => {
    expect((await contains().score(context("The answer is 420.", "420"))).pass).toBe(true);
    expect(
      (await contains("tokyo", { ignoreCase: true }).score(context("Noon in Tokyo", undefined))).pass,
    ).toBe(true);
    expect((await contains("Osaka").score(context("Noon in Tokyo", undefined))).reason).toMatch(
      /lacks "Osaka"/,
    );
    const global = regex(/\d{3}/g);
    // A global pattern must not carry lastIndex from one output to the next.
    expect((await global.score(context("is 420", undefined))).pass).toBe(true);
    expect((await global.score(context("is 420", undefined))).pass).toBe(true);
    expect((await regex(/^\d+$/).score(context("no digits", undefined))).pass).toBe(false);
  });

  it("numeric finds the first number and honours absolute and relative tolerance", async () => {
    expect((await numeric().score(context("The total is 1,000.4 km", 1000))).pass).toBe(false);
    expect((await numeric({ tolerance: 0.5 }).score(context("The total is 1,000.4 km", 1000))).pass).toBe(
      true,
    );
    expect((await numeric({ relative: 0.01 }).score(context("26.2", 26))).pass).toBe(true);
    expect((await numeric({ value: 7 }).score(context(7, undefined))).pass).toBe(true);
    expect((await numeric().score(context("none here", 3))).reason).toMatch(/no number/);
    expect((await numeric().score(context("3", "not a number"))).reason).toMatch(/no numeric target/);
  });
});

describe("typed-output field checks", () => {
  it("scores the share of fields that pass and names the ones that fail", async () => {
    const check = fields<{ answer: number; unit: string }, undefined>(
      z.object({ answer: z.number().min(400), unit: z.literal("km") }),
    );
    expect(await check.score(context({ answer: 420, unit: "km" }))).toMatchObject({ score: 1, pass: true });
    const half = await check.score(context({ answer: 420, unit: "mi" }));
    expect(half.score).toBe(0.5);
    expect(half.pass).toBe(false);
    expect(half.reason).toMatch(/^unit: /);
    expect(
      (await check.score(context("text" as unknown as { answer: number; unit: string }))).reason,
    ).toMatch(/not an object/);
  });

  it("builds the schema from the case's expected value", async () => {
    const check = fields<{ answer: number }, { answer: number }>(({ expected }) =>
      z.object({ answer: z.literal(expected?.answer ?? Number.NaN) }),
    );
    expect((await check.score(context({ answer: 42 }, { answer: 42 }))).pass).toBe(true);
    expect((await check.score(context({ answer: 41 }, { answer: 42 }))).pass).toBe(false);
  });
});

describe("trajectory scorers", () => {
  const calls = [
    call("search", { q: "dune" }),
    call("calculate", { expr: "2+2" }),
    call("weather", { city: "Paris" }),
  ];

  it("toolsCalled in sequence, exactly, or as a set, with argument matchers", async () => {
    const t = { calls };
    expect((await toolsCalled(["search", "weather"]).score(context("", undefined, t))).pass).toBe(true);
    const wrongOrder = await toolsCalled(["weather", "search"]).score(context("", undefined, t));
    expect(wrongOrder.score).toBe(0.5);
    expect(wrongOrder.reason).toMatch(/missing search \(sequence\)/);
    expect(
      (await toolsCalled(["weather", "search"], { order: "set" }).score(context("", undefined, t))).pass,
    ).toBe(true);
    const exactly = await toolsCalled(["search", "weather"], { order: "exact" }).score(
      context("", undefined, t),
    );
    expect(exactly.pass).toBe(false);
    expect(exactly.reason).toMatch(/expected exactly search, weather/);
    const args = toolsCalled([
      { name: "search", args: { q: "dune" } },
      { name: "calculate", args: z.object({ expr: z.string().regex(/\+/) }) },
      { name: "weather", args: (a) => (a as { city: string }).city.startsWith("P") },
    ]);
    expect((await args.score(context("", undefined, t))).pass).toBe(true);
    const badArgs = await toolsCalled([{ name: "search", args: { q: "tolkien" } }]).score(
      context("", undefined, t),
    );
    expect(badArgs.pass).toBe(false);
  });

  it("maxSteps and noToolErrors read the trajectory", async () => {
    expect((await maxSteps(2).score(context("", undefined, { steps: 3 }))).pass).toBe(false);
    expect((await maxSteps(3).score(context("", undefined, { steps: 3 }))).pass).toBe(true);
    expect((await noToolErrors().score(context("", undefined, { calls }))).pass).toBe(true);
    const failing = await noToolErrors().score(
      context("", undefined, { calls: [...calls, call("weather", {}, "invalid")] }),
    );
    expect(failing.pass).toBe(false);
    expect(failing.reason).toMatch(/weather invalid: "boom"/);
  });

  it("cost and latency thresholds; an unknown price fails rather than passing unseen", async () => {
    expect((await maxCost(0.01).score(context("", undefined, { costUsd: 0.004 }))).pass).toBe(true);
    expect((await maxCost(0.001).score(context("", undefined, { costUsd: 0.004 }))).pass).toBe(false);
    expect((await maxCost(1).score(context("", undefined, {}))).reason).toMatch(/unknown/);
    expect((await maxLatency(50).score(context("", undefined, { latencyMs: 49 }))).pass).toBe(true);
    expect((await maxLatency(50).score(context("", undefined, { latencyMs: 51 }))).pass).toBe(false);
  });
});

describe("custom scorers", () => {
  it("accept a boolean, a number with a threshold, or a full result", async () => {
    expect(await scorer("yes", () => true).score(context("", undefined))).toEqual({
      score: 1,
      pass: true,
      reason: "passed",
    });
    expect((await scorer("half", () => 0.5, { threshold: 0.4 }).score(context("", undefined))).pass).toBe(
      true,
    );
    expect((await scorer("half", () => 0.5).score(context("", undefined))).pass).toBe(false);
    expect(
      await scorer("full", async () => ({ score: 3, pass: false, reason: "mine" })).score(
        context("", undefined),
      ),
    ).toEqual({ score: 1, pass: false, reason: "mine" });
  });
});
