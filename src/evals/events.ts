import type { AgentEvent } from "../index.js";
import type { EvalResult, TrialRecord } from "./types.js";

/** The eval began: how many trials it will run. */
export interface EvalStartEvent {
  type: "eval_start";
  id: string;
  name: string;
  trials: number;
}

/** A trial (one case, one repeat) began. */
export interface TrialStartEvent {
  type: "trial_start";
  caseId: string;
  repeat: number;
}

/** An event of a trial's runs: the agent's, or a judge's (its requests visible like any other). */
export interface TrialRunEvent {
  type: "run_event";
  caseId: string;
  repeat: number;
  source: "agent" | "judge";
  event: AgentEvent;
}

/** A trial was scored (or skipped). */
export interface TrialEndEvent {
  type: "trial_end";
  caseId: string;
  repeat: number;
  trial: TrialRecord;
  /** Trials finished so far, and in all. */
  done: number;
  total: number;
  /** Dollars spent by the eval so far. */
  spentUsd: number;
}

/** The eval ended (also when stopped early). */
export interface EvalEndEvent {
  type: "eval_end";
  result: EvalResult;
}

/** Every event of an eval, by `type`. */
export type EvalEvent = EvalStartEvent | TrialStartEvent | TrialRunEvent | TrialEndEvent | EvalEndEvent;
