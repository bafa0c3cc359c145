import type { TraceProblem } from "../core/trace-format.js";
import type { Limits } from "../core/vocabulary/limits.js";
import type { FinishReason, ReasoningPart, ToolCall } from "../core/vocabulary/messages.js";
import type { ToolOutcomeStatus } from "../core/vocabulary/outcome.js";
import type { TraceRunStatus } from "../core/vocabulary/status.js";
import type { RunUsage, TokenUsage } from "../core/vocabulary/usage.js";

// The shape of a run as the trace tools show it; `buildRunView` (build-run-view.ts) fills it from events.

/** One request as it went over the wire (one per attempt). */
export interface RequestView {
  attempt: number;
  time: number;
  url?: string;
  body: unknown;
}

/** The model's answer in a step. */
export interface ResponseView {
  time: number;
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: TokenUsage;
  latencyMs: number;
  reasoning?: ReasoningPart[];
  raw?: unknown;
  /** The model that answered, when a fallback chain chose it. */
  model?: string;
}

/** A fallback chain left one model for the next (or had none left) in a step. */
export interface FallbackView {
  from: string;
  to?: string;
  reason: string;
  error: string;
  status?: number;
  elapsedMs: number;
  time: number;
}

/** One tool call and what became of it. */
export interface ToolCallView {
  toolCallId: string;
  toolName: string;
  /** The raw argument text the model produced. */
  arguments: string;
  time: number;
  status?: ToolOutcomeStatus;
  content?: string;
  durationMs?: number;
  errorDetail?: string;
  /** Runs of agents used as this tool, built from their nested events. */
  subRuns: RunView[];
  /** The scale-out worker that ran the call (its result's, else its start's `worker`). */
  worker?: string;
}

/** An error that ended the run. */
export interface ErrorView {
  code: string;
  message: string;
  time: number;
  /** The step that was running or had just run. */
  step: number;
}

/** One step: its requests (retries included), the response, the tool calls. */
export interface StepView {
  step: number;
  time: number;
  /** Milliseconds from the run's start. */
  offsetMs: number;
  durationMs?: number;
  requests: RequestView[];
  retries: { attempt: number; delayMs: number; error: string; time: number }[];
  /** Models a fallback chain left in this step, and why (absent when none was left). */
  fallbacks?: FallbackView[];
  /** Waits a client-side rate limit imposed before this step's model call. */
  rateLimitWaits?: { model: string; limit: string; waitMs: number; time: number }[];
  response?: ResponseView;
  /** Reasoning of another provider that the request left out (the transcript changed provider). */
  reasoningDropped?: { count: number; from: string[] };
  tools: ToolCallView[];
  /** The guardrails' verdicts in this step, in order (absent when none judged anything). */
  guardrails?: GuardrailView[];
  /** Cost of this step in USD when the model's price is known. */
  costUsd?: number;
  /** The run's usage after this step: budget consumption so far. */
  usage?: RunUsage;
  error?: ErrorView;
  /**
   * The scale-out workers whose events make up this step, in order: one, or two when a worker
   * died during the step and another finished it. Absent for a run on one process.
   */
  workers?: string[];
}

/** One guardrail's verdict, from its `guardrail` event. */
export interface GuardrailView {
  name: string;
  stage: "input" | "output" | "tool_before" | "tool_after";
  action: "allow" | "reject" | "tripwire" | "error";
  message?: string;
  toolCallId?: string;
  toolName?: string;
  durationMs: number;
  time: number;
}

/** A run reconstructed from its events, ready to print or to show in the viewer. */
export interface RunView {
  runId: string;
  /** The agent's name from `run_start` (absent in traces written before it was recorded). */
  agent?: string;
  model: string;
  input: string;
  status: TraceRunStatus;
  startedAt: number;
  endedAt?: number;
  durationMs?: number;
  limits?: Limits;
  usage?: RunUsage;
  output?: unknown;
  /** Steps in order; tool calls of the closing of a crashed history land in step 0. */
  steps: StepView[];
  errors: ErrorView[];
  /** Lines of the trace that could not be used. */
  problems: TraceProblem[];
  /** Events of kinds this version does not know, kept so nothing is silently dropped. */
  unknownEvents: number;
  /** The scale-out workers that ran this run, in the order they joined it (absent: one process). */
  workers?: string[];
}
