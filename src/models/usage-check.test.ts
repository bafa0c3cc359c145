import { Agent, ModelCallError } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import type { RunUsage } from "../core/vocabulary/usage.js";
import { UsageMeter } from "../loop/usage.js";
import { ProviderProtocolError } from "./errors.js";
import {
  checkedCost,
  checkedRunUsage,
  checkedTokenUsage,
  MAX_REPORTED_TOKENS,
  reportedCount,
} from "./usage-check.js";

describe("reportedCount: one reported token count", () => {
  it("reads absent as 0 and whole non-negative numbers as themselves", () => {
    expect(reportedCount(undefined, "f", "p")).toBe(0);
    expect(reportedCount(null, "f", "p")).toBe(0);
    expect(reportedCount(0, "f", "p")).toBe(0);
    expect(reportedCount(1234, "f", "p")).toBe(1234);
    expect(reportedCount(MAX_REPORTED_TOKENS, "f", "p")).toBe(MAX_REPORTED_TOKENS);
  });

  it.each([-1, -1e8, 1.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_REPORTED_TOKENS + 1, "12", {}, [], true])(
    "refuses %s with a ProviderProtocolError naming the field and the provider",
    (value) => {
      const error = (() => {
        try {
          reportedCount(value, "prompt_tokens", "acme");
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ProviderProtocolError);
      expect((error as ProviderProtocolError).code).toBe("provider_protocol");
      expect((error as ProviderProtocolError).provider).toBe("acme");
      expect((error as Error).message).toMatch(/^acme reported impossible usage \(prompt_tokens = /);
    },
  );
});

describe("checkedTokenUsage: the normalized usage of one call", () => {
  it("passes consistent usage through as the same object", () => {
    const usage = {
      inputTokens: 10,
      outputTokens: 5,
      cachedInputTokens: 4,
      cacheWriteInputTokens: 6,
      reasoningTokens: 5,
    };
    expect(checkedTokenUsage(usage, "p")).toBe(usage);
  });

  it("refuses cached plus cache writes over input, and reasoning over output", () => {
    expect(() => checkedTokenUsage({ inputTokens: 10, outputTokens: 1, cachedInputTokens: 11 }, "p")).toThrow(
      ProviderProtocolError,
    );
    expect(() =>
      checkedTokenUsage(
        { inputTokens: 10, outputTokens: 1, cachedInputTokens: 6, cacheWriteInputTokens: 5 },
        "p",
      ),
    ).toThrow(/cached 6 \+ cache writes 5 of 10 input tokens/);
    expect(() => checkedTokenUsage({ inputTokens: 10, outputTokens: 1, reasoningTokens: 2 }, "p")).toThrow(
      /reasoning tokens cannot exceed the output tokens/,
    );
  });

  it("refuses a missing input or output count and a usage that is not an object", () => {
    expect(() => checkedTokenUsage({ outputTokens: 1 } as never, "p")).toThrow(/required/);
    expect(() => checkedTokenUsage(null as never, "p")).toThrow(/usage must be an object/);
  });
});

describe("costs and rolled-up usage", () => {
  it("checkedCost refuses negative and non-finite dollars", () => {
    expect(checkedCost(0.5, "cost", "p")).toBe(0.5);
    for (const bad of [-0.01, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => checkedCost(bad, "cost", "p")).toThrow(ProviderProtocolError);
  });

  const honest = (): RunUsage => ({
    requests: 1,
    inputTokens: 10,
    outputTokens: 2,
    cachedInputTokens: 0,
    toolCalls: 0,
    durationMs: 5,
    costUsd: 0.01,
    steps: [
      {
        step: 1,
        inputTokens: 10,
        outputTokens: 2,
        cachedInputTokens: 0,
        toolCalls: 0,
        durationMs: 5,
        costUsd: 0.01,
      },
    ],
  });

  it("checkedRunUsage refuses a sub-run whose totals or steps would shrink a parent", () => {
    expect(checkedRunUsage(honest(), "sub")).toEqual(honest());
    expect(() => checkedRunUsage({ ...honest(), inputTokens: -1e8 }, "sub")).toThrow(ProviderProtocolError);
    expect(() => checkedRunUsage({ ...honest(), costUsd: -3 }, "sub")).toThrow(/a cost must be/);
    expect(() => checkedRunUsage({ ...honest(), requests: Number.NaN }, "sub")).toThrow(/request count/);
    const badStep = honest();
    badStep.steps[0] = { ...badStep.steps[0], toolCalls: -1 } as RunUsage["steps"][number];
    expect(() => checkedRunUsage(badStep, "sub")).toThrow(/tool call count/);
  });

  it("a meter never counts usage that breaks the rule: totals only grow", () => {
    const meter = new UsageMeter({ inputPerMTok: 1, outputPerMTok: 1 });
    meter.startStep(1);
    meter.addModelCall({ inputTokens: 100, outputTokens: 10 });
    expect(() => meter.addModelCall({ inputTokens: -1e8, outputTokens: 0 })).toThrow(ProviderProtocolError);
    expect(() => meter.addSubRun({ ...honest(), outputTokens: Number.NaN })).toThrow(ProviderProtocolError);
    expect(meter.totalTokens).toBe(110);
    expect(meter.costUsd).toBeCloseTo(110 / 1_000_000, 12);
  });

  it("a Model that is not an HTTP provider (a user's own) is held to the same rule by the loop", async () => {
    const model = new ScriptedModel([{ text: "ok", usage: { inputTokens: -50, outputTokens: 1 } }], {
      id: "mine:liar",
    });
    const error = await new Agent({ model }).run("hi").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    expect((error as ModelCallError).cause).toBeInstanceOf(ProviderProtocolError);
    expect(((error as ModelCallError).cause as Error).message).toMatch(
      /^mine:liar reported impossible usage/,
    );
    expect((error as ModelCallError).usage.inputTokens).toBe(0);
    expect((error as ModelCallError).usage.requests).toBe(1);
  });
});
