/**
 * The one interface through which everything optional attaches to the loop: durability, approval,
 * the loop guard, the context view and recall, planning, reflection (and a distributed engine's
 * steps). A feature implements the methods it needs; `composeHooks` (compose-hooks.ts) joins a
 * run's features into one object once per run, and the loop calls only the methods that object has, so a step pays
 * for no feature it does not use.
 */

import type { RunError } from "../core/errors.js";
import type { RecordedAnswers } from "../core/questions.js";
import type { RunStop } from "../core/stop.js";
import type { EventInit } from "../core/vocabulary/events.js";
import type { AssistantMessage, FinishReason, Message, ToolCall } from "../core/vocabulary/messages.js";
import type { ToolOutcome } from "../core/vocabulary/outcome.js";
import type { AskedQuestion } from "../core/vocabulary/questions.js";
import type { Model, ModelResponse, ToolChoice, ToolSpec } from "../models/model.js";
import type { Budget } from "./budget.js";
import type { Environment, InvalidCall, ReadyCall } from "./environment/environment.js";
import type { UsageMeter } from "./usage.js";

/** Everything one run shares between the loop and the turn handler. */
export interface RunState<TContext> {
  runId: string;
  model: Model;
  environment: Environment<TContext>;
  budget: Budget;
  meter: UsageMeter;
  messages: Message[];
  /**
   * Fires on the caller's abort, on `limits.timeoutMs` and when a stream's reader leaves. Its
   * `signal` is made when first read: hot paths read `aborted` or watch it.
   */
  stop: RunStop;
  emit: (event: EventInit) => void;
  /** The run's features, composed once (agent/compose-hooks.ts): the loop calls only the methods present. */
  hooks: RunHooks;
  /** The person's answers a resumed run carries for the questions its calls asked (resume's `answers`). */
  answers?: RecordedAnswers;
}

/** How a successful run ended. */
export interface FinalAnswer {
  output: unknown;
  /** `text` for a plain answer, otherwise the name of the tool that ended the run. */
  finishedBy: string;
}

/**
 * What one step came to: the run is done, or it goes on. `unusable` says why the model's answer
 * could not be used (it counts against `maxRetries`); `failed`, that a call of the turn failed;
 * `reviewed`, that a reviewer sent a final answer back (neither usable nor unusable: the retry
 * count stands).
 */
export type StepResult =
  | { kind: "done"; outcome: FinalAnswer }
  | { kind: "next"; unusable?: string; failed?: boolean; reviewed?: true };

/** A turn a resumed run must finish first: its answer was stored, some of its calls have no result. */
export interface PendingTurn {
  assistant: AssistantMessage;
  finishReason: FinishReason | undefined;
  /** The answer's calls still without a result in the transcript. */
  calls: ToolCall[];
  /** Outcomes already known by call id (finished before the crash, or interrupted by it): not run again. */
  known: ReadonlyMap<string, ToolOutcome>;
}

/** Where a run starts: a fresh run at step 1; a resumed one at its stored step, maybe mid-turn. */
export interface StartPosition {
  step: number;
  pendingTurn?: PendingTurn;
}

/** What one model call of a step sends, before the loop adds the settings and the signal. */
export interface StepRequest {
  instructions?: string;
  messages: Message[];
  tools: ToolSpec[];
  toolChoice?: ToolChoice;
}

/** A call of the turn as the environment prepared it: ready to run, or refused with feedback. */
export type PreparedCall = ReadyCall<unknown> | InvalidCall;

/**
 * Outcomes hooks give calls of a turn instead of running them, by each call's index in the turn. A
 * call already answered keeps its answer: a hook's answer never replaces an earlier one.
 */
export type CallAnswers = ReadonlyMap<number, ToolOutcome>;

/** The outcomes a turn's calls have so far, by index (a hole: no outcome yet), as hooks read them. */
export type AnsweredCalls = readonly (ToolOutcome | undefined)[];

/** What a hook decides before a turn's concurrent calls run: answers for some calls, a stop, or both. */
export interface ConcurrentDecision {
  answers?: CallAnswers;
  stop?: TurnStop;
}

/** A stop a hook asks for before a turn's concurrent calls run: they are not run, and the turn ends with `error`. */
export interface TurnStop {
  /** For the calls not run: "Not executed: the run stopped (reason)." */
  reason: string;
  error(state: RunState<unknown>): RunError;
}

/** A turn whose results are in the transcript. Empty `prepared` for an answer decided without running calls. */
export interface TurnRecord {
  prepared: readonly PreparedCall[];
  outcomes: readonly ToolOutcome[];
  /** The interrupted turn a resumed run finished (not a step of its own). */
  resumed: boolean;
}

/**
 * A turn whose calls settled while some of them asked the person a question: `outcomes` by index
 * (a hole for a call that asked, or never ran), `asked` the questions of each call that asked,
 * its earlier answered ones first and the waiting one last.
 */
export interface AskingTurn {
  calls: readonly ToolCall[];
  outcomes: AnsweredCalls;
  asked: ReadonlyMap<number, readonly AskedQuestion[]>;
}

/** How a run ended, for `end`. A pause for approval is no end: `end` is not called for it. */
export type RunEnding = { ok: true; outcome: FinalAnswer } | { ok: false; error: RunError };

/** The rest of a model call, for an around hook: the next hook, or the call itself. */
export type ModelNext = (request: StepRequest) => Promise<ModelResponse>;

/** The rest of a tool call, for an around hook: the next hook, or the run of the tool itself. */
export type ToolNext = () => Promise<ToolOutcome>;

/**
 * A computation a feature makes besides the model and tool calls (a guardrail's check), named for
 * traces and engines; its result is plain JSON.
 */
export type SideNext<T> = () => Promise<T>;

/**
 * The places a feature can act in a run, in the order the loop reaches them. Every method is
 * optional; the ones named `…Call` are around hooks that must call `next` (or answer instead).
 */
export interface RunHooks {
  /** Before step 1: where the run starts (a resumed run's stored step and interrupted turn). */
  start?(state: RunState<unknown>): Promise<StartPosition | undefined>;
  /** Before each model call, after the budget check: what the last step added is durable. */
  beforeModelCall?(state: RunState<unknown>, step: number): Promise<void>;
  /** Around each model call of a step: what the model sees, the tool choice, an engine's step. */
  modelCall?(
    state: RunState<unknown>,
    step: number,
    request: StepRequest,
    next: ModelNext,
  ): Promise<ModelResponse>;
  /** The answer is in the transcript (before the budget looks at its usage). */
  afterResponse?(
    state: RunState<unknown>,
    step: number,
    assistant: AssistantMessage,
    finishReason: FinishReason,
  ): Promise<void>;
  /**
   * Before any call of the turn runs: returns the calls it answers instead of running them
   * (`answered`: what earlier hooks answered), or throws to stop the run before anything ran.
   */
  beforeTools?(
    state: RunState<unknown>,
    step: number,
    prepared: readonly PreparedCall[],
    answered: AnsweredCalls,
  ): Promise<CallAnswers | undefined>;
  /**
   * Before the turn's non-terminal calls run together (its terminal calls had their go, none
   * ended the run; `answered` holds every outcome so far): returns answers for calls, a stop, or both.
   */
  beforeConcurrentCalls?(
    state: RunState<unknown>,
    step: number,
    prepared: readonly PreparedCall[],
    answered: AnsweredCalls,
  ): ConcurrentDecision | undefined;
  /** Around each tool call that runs (budget checked and counted already). */
  toolCall?(
    state: RunState<unknown>,
    step: number,
    ready: ReadyCall<unknown>,
    next: ToolNext,
  ): Promise<ToolOutcome>;
  /**
   * Around a feature's side computation (a guardrail's check, named `guardrail:<name>`): a
   * distributed engine runs it as one step, so a replay gets the recorded result (JSON) instead of
   * deciding again. Features call it through `state.hooks.sideStep`, never directly.
   */
  sideStep?<T>(state: RunState<unknown>, name: string, next: SideNext<T>): Promise<T>;
  /**
   * The turn's calls settled and some asked the person a question: stores the run paused with them
   * waiting (durability's; the run then ends with InputRequiredError), or waits for the answers in
   * place and returns them, each asking call's questions with their answers (a distributed
   * engine's, whose run can wait): the turn then runs those calls again with the answers. Without
   * it such a call fails with a message the model reads, since nothing could keep the question
   * until the person answers.
   */
  pauseForInput?(
    state: RunState<unknown>,
    step: number,
    turn: AskingTurn,
  ): Promise<ReadonlyMap<string, readonly AskedQuestion[]> | undefined>;
  /** The turn's results are in the transcript and no stop came of them. */
  afterTurn?(state: RunState<unknown>, step: number, turn: TurnRecord): void;
  /** What the step comes to, seen last: may turn a final answer into feedback. */
  decide?(state: RunState<unknown>, step: number, result: StepResult): Promise<StepResult>;
  /** After `run_end`: the run is over, successfully or not (not called for a pause). */
  end?(state: RunState<unknown>, ending: RunEnding): Promise<void>;
}
