import type { Scorer } from "../types.js";
import { verdict } from "./result.js";

/** The trial (agent and judges) cost at most `usd` dollars; fails when the price is unknown. */
export function maxCost<TOutput, TExpected>(usd: number): Scorer<TOutput, TExpected> {
  return {
    name: "max-cost",
    score: ({ trajectory }) => {
      const cost = trajectory.costUsd;
      if (cost === undefined) return verdict(false, "the cost is unknown (a model without a price)");
      return verdict(cost <= usd, `$${cost.toFixed(6)} of at most $${usd}`);
    },
  };
}

/** The trial took at most `ms` milliseconds of wall time. */
export function maxLatency<TOutput, TExpected>(ms: number): Scorer<TOutput, TExpected> {
  return {
    name: "max-latency",
    score: ({ trajectory }) =>
      verdict(trajectory.latencyMs <= ms, `${Math.round(trajectory.latencyMs)} ms of at most ${ms} ms`),
  };
}
