import type { TraceRunStatus } from "../core/vocabulary/status.js";
import type { RunView, StepView } from "./run-view.js";

/** The line a run gets in a list of runs. */
export interface RunSummary {
  runId: string;
  model: string;
  status: TraceRunStatus;
  input: string;
  startedAt: number;
  durationMs?: number;
  steps: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
  errorCode?: string;
  /** The trace file it was read from. */
  file?: string;
}

/** The list line of a run. */
export function summarize(view: RunView, file?: string): RunSummary {
  const usage = view.usage;
  const tokens = usage ?? tokensFromSteps(view.steps);
  const firstError = view.errors[0];
  return {
    runId: view.runId,
    model: view.model,
    status: view.status,
    input: view.input.length > 200 ? `${view.input.slice(0, 200)}…` : view.input,
    startedAt: view.startedAt,
    ...(view.durationMs !== undefined && { durationMs: view.durationMs }),
    steps: view.steps.filter((s) => s.step > 0).length,
    toolCalls: view.steps.reduce((n, s) => n + s.tools.length, 0),
    inputTokens: tokens.inputTokens,
    outputTokens: tokens.outputTokens,
    ...(usage?.costUsd !== undefined && { costUsd: usage.costUsd }),
    ...(firstError && { errorCode: firstError.code }),
    ...(file !== undefined && { file }),
  };
}

function tokensFromSteps(steps: StepView[]): { inputTokens: number; outputTokens: number } {
  let inputTokens = 0;
  let outputTokens = 0;
  for (const s of steps) {
    inputTokens += s.response?.usage.inputTokens ?? 0;
    outputTokens += s.response?.usage.outputTokens ?? 0;
  }
  return { inputTokens, outputTokens };
}
