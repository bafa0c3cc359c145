/**
 * The guardrail API: checks a user adds to an agent (`guardrails: { input, output, tools }`) that
 * judge the run's input, its final answer, and each tool call before and after it runs. A check
 * answers with a verdict: allow, reject (the model is told why and goes on), or tripwire (the run
 * stops with a GuardrailTripwireError). The feature that runs them is hooks.ts beside this file.
 */

import type { AgentEvent } from "../../core/vocabulary/events.js";
import type { Limits, RemainingBudget } from "../../core/vocabulary/limits.js";
import type { FilePart, ImagePart, Message } from "../../core/vocabulary/messages.js";
import type { ToolOutcomeStatus } from "../../core/vocabulary/outcome.js";
import type { RunUsage } from "../../core/vocabulary/usage.js";
import type { Model } from "../../models/model.js";

/** The check passed: the run goes on as if the guardrail were not there. */
export interface GuardrailAllow {
  action: "allow";
}

/** The model is told `message` and goes on (a tool call is not run, or its result is withheld; an answer is sent back). */
export interface GuardrailReject {
  action: "reject";
  /** What the model reads instead: say what to change, so it can correct itself. */
  message: string;
}

/** The run stops with a GuardrailTripwireError carrying `reason` and `info`. */
export interface GuardrailTripwire {
  action: "tripwire";
  /** Why, for the error message, the `guardrail` event and the run's stored error. */
  reason: string;
  /** Anything the guardrail wants the caller to have (scores, matches): on the error only, never stored. */
  info?: unknown;
}

/** What an input guardrail decides: the run's input cannot be "corrected" by the model, only allowed or stopped. */
export type InputVerdict = GuardrailAllow | GuardrailTripwire;

/** What an output or tool guardrail decides. */
export type GuardrailVerdict = GuardrailAllow | GuardrailReject | GuardrailTripwire;

/** Where a guardrail acts, as events and errors name it. */
export type GuardrailStage = "input" | "output" | "tool_before" | "tool_after";

/** An agent a guardrail can run as a judge (any `Agent`): `tools.runAgent` runs it inside the run's budget. */
export interface GuardrailAgent<TOutput> {
  run(
    input: string,
    options: { signal: AbortSignal; onEvent: (event: AgentEvent) => void; limits: Limits },
  ): Promise<{ output: TOutput; usage: RunUsage }>;
}

/** What a guardrail's check may use besides what it judges. */
export interface GuardrailTools<TContext> {
  /** The run's signal: fires on the caller's abort and on `limits.timeoutMs`. */
  signal: AbortSignal;
  /** The run's hidden context (the model never sees it), e.g. the user a call acts for. */
  context: TContext;
  /** What is left of the run's limits when the check starts: the ceiling of any model call it makes. */
  remaining: RemainingBudget;
  /**
   * Runs `agent` (a classifier, a judge) on `input` inside the run: its limits are what the run
   * has left, its events are the run's (`nested`, named `guardrail:<name>`), its usage is the
   * run's. Returns its output; a failed judge's usage counts too.
   */
  runAgent<TOutput>(agent: GuardrailAgent<TOutput>, input: string): Promise<TOutput>;
  /** For a check that calls a model itself: adds that call's usage to the run's. */
  addUsage(usage: RunUsage): void;
  /** For a check that calls a model itself: reports its events as the run's (`nested`). */
  forward(event: AgentEvent): void;
}

/** What every guardrail has. */
interface GuardrailBase {
  /** Names the guardrail in events, traces, the viewer and errors. */
  name: string;
  /** The models its checks call, so `limits.maxCostUsd` can require their prices up front. */
  models?: readonly Model[];
}

/** What an input guardrail judges: the run's new user message. */
export interface GuardrailInput {
  /** The run's input text. */
  text: string;
  images: readonly ImagePart[];
  files: readonly FilePart[];
  /** The transcript the first model call sends (a session's history, then the input). */
  messages: readonly Message[];
}

/**
 * Judges the run's input once, on the run's first model call. `mode` says whether that call
 * waits: `before` (the default) runs the check first, so a tripped run costs no model call;
 * `parallel` starts the model call alongside, and holds its answer (and its events) until every
 * check has decided: a tripwire discards the answer before any tool runs or anything is returned,
 * and the call's cost still counts.
 */
export interface InputGuardrail<TContext = unknown> extends GuardrailBase {
  mode?: "before" | "parallel";
  check(input: GuardrailInput, tools: GuardrailTools<TContext>): InputVerdict | Promise<InputVerdict>;
}

/** What an output guardrail judges: an answer that would end the run. */
export interface GuardrailOutput<TOutput> {
  /** The run's output as it would be returned: text, the typed `output`, or a terminal tool's result. */
  output: TOutput;
  /** `text`, or the name of the tool that ended the run (`final_result` for a typed output). */
  finishedBy: string;
  /** The run's input. */
  input: string;
  messages: readonly Message[];
}

/**
 * Judges every answer that would end the run, before the run returns it (and before reflection's
 * evaluator): `reject` sends the answer back with `message` (counted against `limits.maxRetries`,
 * like any unusable answer), `tripwire` stops the run.
 */
export interface OutputGuardrail<TOutput = unknown, TContext = unknown> extends GuardrailBase {
  check(
    output: GuardrailOutput<TOutput>,
    tools: GuardrailTools<TContext>,
  ): GuardrailVerdict | Promise<GuardrailVerdict>;
}

/** A tool call as a tool guardrail sees it: validated by the tool's schema, about to run. */
export interface GuardrailToolCall<TArgs = unknown> {
  toolName: string;
  toolCallId: string;
  /** The arguments as the tool's schema parsed them: exactly what the tool gets. */
  args: TArgs;
  /** The arguments as the model sent them (JSON text). */
  arguments: string;
}

/** A call's result as a tool guardrail sees it after the call ran, before the model does. */
export interface GuardrailToolResult<TArgs = unknown> extends GuardrailToolCall<TArgs> {
  status: ToolOutcomeStatus;
  /** What the model would read. */
  content: string;
  images: readonly ImagePart[];
  files: readonly FilePart[];
}

/** A tool guardrail's `before` check: the call with its validated arguments, before it runs. */
export interface ToolBeforeCheck<TContext = unknown, TArgs = unknown> {
  // Method syntax on purpose: a check typed for one tool's arguments fits a list of any tool's.
  before(
    call: GuardrailToolCall<TArgs>,
    tools: GuardrailTools<TContext>,
  ): GuardrailVerdict | Promise<GuardrailVerdict>;
}

/** A tool guardrail's `after` check: the call's result, before the model reads it. */
export interface ToolAfterCheck<TContext = unknown, TArgs = unknown> {
  after(
    result: GuardrailToolResult<TArgs>,
    tools: GuardrailTools<TContext>,
  ): GuardrailVerdict | Promise<GuardrailVerdict>;
}

/** The `before` check, optional. */
interface MaybeBefore<TContext, TArgs> {
  before?(
    call: GuardrailToolCall<TArgs>,
    tools: GuardrailTools<TContext>,
  ): GuardrailVerdict | Promise<GuardrailVerdict>;
}

/** The `after` check, optional. */
interface MaybeAfter<TContext, TArgs> {
  after?(
    result: GuardrailToolResult<TArgs>,
    tools: GuardrailTools<TContext>,
  ): GuardrailVerdict | Promise<GuardrailVerdict>;
}

/** What every tool guardrail has besides its checks. */
export interface ToolGuardrailBase extends GuardrailBase {
  /** The tools it watches, by name; every tool when absent. */
  tools?: readonly string[];
}

/**
 * Judges tool calls: `before` with the validated arguments (reject: the call does not run and the
 * model reads `message`), `after` with the result (reject: the model reads `message` instead of
 * it); at least one of them. A tripwire stops the run once the turn's running calls have
 * finished; calls of the turn not yet started do not run. Calls of `final_result` are the run's
 * answer: output guardrails judge them.
 */
export type ToolGuardrail<TContext = unknown, TArgs = unknown> = ToolGuardrailBase &
  (
    | (ToolBeforeCheck<TContext, TArgs> & MaybeAfter<TContext, TArgs>)
    | (MaybeBefore<TContext, TArgs> & ToolAfterCheck<TContext, TArgs>)
  );

/** An agent's guardrails (the `guardrails` option), run in the order listed; the first that does not allow decides. */
export interface Guardrails<TContext = unknown, TOutput = unknown> {
  input?: readonly InputGuardrail<TContext>[];
  output?: readonly OutputGuardrail<TOutput, TContext>[];
  // `unknown` arguments: a guardrail typed for one tool's arguments (`toolGuardrail(tool, ...)`)
  // fits here too, since it names that tool in `tools` and sees only its calls.
  tools?: readonly ToolGuardrail<TContext, unknown>[];
}
