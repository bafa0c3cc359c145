/**
 * Everything a run reports while it runs: one discriminated union, `AgentEvent`, keyed by `type`.
 * The events of one model call (its request, retries, fallbacks, streamed pieces and answer) are
 * declared in model-events.ts and re-exported here: import events from this file.
 */
import type { Limits } from "./limits.js";
import type { Message } from "./messages.js";
import type { EventBase, ModelCallEvent } from "./model-events.js";
import type { ToolOutcomeStatus } from "./outcome.js";
import type { PersonQuestion } from "./questions.js";
import type { RunStatus } from "./status.js";
import type { RunUsage } from "./usage.js";

// What one model call reports lives in model-events.ts; this file is still the one import point.
export type {
  FallbackReason,
  ModelFallbackEvent,
  ModelRequestEvent,
  ModelResponseEvent,
  ModelRetryEvent,
  RateLimitWaitEvent,
  ReasoningDeltaEvent,
  ReasoningDroppedEvent,
  TextDeltaEvent,
  ToolCallDeltaEvent,
} from "./model-events.js";

/** The run began. */
export interface RunStartEvent extends EventBase {
  type: "run_start";
  /** The agent's `name` (default `agent`), so traces and spans can label nested runs. */
  agent?: string;
  model: string;
  input: string;
  /** The run's limits, so traces can show budget consumption against them. */
  limits?: Limits;
  /** True when this continues a stored run (`agent.resume`) from its last checkpoint. */
  resumed?: boolean;
  /** True when the run sent no new user message (`agent.run(null, …)`); `input` is then the last one. */
  continued?: boolean;
}

/** A step (one model call plus its tool calls) began. */
export interface StepStartEvent extends EventBase {
  type: "step_start";
  step: number;
}

/** Long-term memory was searched with the run's input; the notes were added to the instructions. */
export interface RecallEvent extends EventBase {
  type: "recall";
  query: string;
  notes: { id: number; text: string; score: number }[];
  /** Why the search failed; the run then goes on without notes. */
  error?: string;
}

/** The model was sent less than the whole transcript (memory strategy, or compaction after an overflow). */
export interface ContextEvent extends EventBase {
  type: "context";
  step: number;
  reason: "memory" | "overflow";
  /** Messages in the transcript, and in what was sent (a summary counts as one). */
  total: number;
  sent: number;
  /** The request's tokens as counted before sending. */
  tokens: number;
}

/** A tool call is about to be handled (run, refused or skipped: `tool_result` says which). */
export interface ToolCallEvent extends EventBase {
  type: "tool_call";
  step: number;
  toolCallId: string;
  toolName: string;
  arguments: string;
}

/** The result of a tool call, as the model will see it, plus details the model never sees. */
export interface ToolResultEvent extends EventBase {
  type: "tool_result";
  step: number;
  toolCallId: string;
  toolName: string;
  status: ToolOutcomeStatus;
  /** The content sent to the model. */
  content: string;
  durationMs: number;
  /** For unexpected exceptions: the real message and stack, kept out of the model's sight. */
  errorDetail?: string;
}

/** An event of a sub-run (an agent used as a tool), nested under the parent's tool call. */
export interface NestedEvent extends EventBase {
  type: "nested";
  step: number;
  toolCallId: string;
  toolName: string;
  event: AgentEvent;
}

/** The model wrote or revised its plan (through the `update_plan` tool). */
export interface PlanEvent extends EventBase {
  type: "plan";
  step: number;
  steps: string[];
  /** 0 for the first plan, then 1, 2, ... for revisions. */
  revision: number;
}

/** The evaluator judged a candidate final answer. */
export interface ReflectionEvent extends EventBase {
  type: "reflection";
  round: number;
  accept: boolean;
  feedback?: string;
}

/**
 * A guardrail decided (`Agent` option `guardrails`): on the run's input, a final answer, or a tool
 * call before it runs or after. Its own model calls, if any, came before it as `nested` events
 * named `guardrail:<name>`.
 */
export interface GuardrailEvent extends EventBase {
  type: "guardrail";
  /** The step it acted in (0: an output guardrail of a resumed run that had not started a step). */
  step: number;
  name: string;
  stage: "input" | "output" | "tool_before" | "tool_after";
  /**
   * `allow`; `reject`: the model was told `message` (instead of running the call, instead of the
   * call's result, or instead of accepting its answer); `tripwire`: the run stops; `error`: the
   * guardrail failed, which stops the run too (a guardrail fails closed).
   */
  action: "allow" | "reject" | "tripwire" | "error";
  /** What the model was told (reject), why the run stopped (tripwire), or what failed (error). */
  message?: string;
  /** The call it judged (tool stages). */
  toolCallId?: string;
  toolName?: string;
  durationMs: number;
}

/**
 * A tool asked the person a question and the run waits for the answer where it is (a scale-out
 * run; a stored local run ends with InputRequiredError instead). The call runs again once answered.
 */
export interface QuestionEvent extends EventBase {
  type: "question";
  step: number;
  toolCallId: string;
  toolName: string;
  question: PersonQuestion;
}

/** A step ended. */
export interface StepEndEvent extends EventBase {
  type: "step_end";
  step: number;
  durationMs: number;
  /** The run's totals so far (budget consumption after this step); `steps` holds only this step. */
  usage?: RunUsage;
}

/** Something ended the run with an error; `run_end` follows. */
export interface ErrorEvent extends EventBase {
  type: "error";
  code: string;
  message: string;
}

/** The run ended; always the last event. */
export interface RunEndEvent extends EventBase {
  type: "run_end";
  status: RunStatus;
  usage: RunUsage;
  /** The final output on success. */
  output?: unknown;
  messages: Message[];
}

/** Every event of a run, discriminated by `type`. */
export type AgentEvent =
  | RunStartEvent
  | StepStartEvent
  | ModelCallEvent
  | ToolCallEvent
  | ToolResultEvent
  | NestedEvent
  | PlanEvent
  | ReflectionEvent
  | GuardrailEvent
  | QuestionEvent
  | RecallEvent
  | ContextEvent
  | StepEndEvent
  | ErrorEvent
  | RunEndEvent;

/** The payload of an event of type `T`, before the loop stamps `runId` and `time`. */
export type EventInit<T extends AgentEvent = AgentEvent> = T extends AgentEvent
  ? Omit<T, "runId" | "time">
  : never;
