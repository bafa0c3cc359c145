/** Everything a run reports while it runs: one discriminated union, `AgentEvent`, keyed by `type`. */
import type { Limits } from "./limits.js";
import type { FinishReason, Message, ReasoningPart, ToolCall } from "./messages.js";
import type { ToolOutcomeStatus } from "./outcome.js";
import type { PersonQuestion } from "./questions.js";
import type { RunStatus } from "./status.js";
import type { RunUsage, TokenUsage } from "./usage.js";

/** Fields every event carries. */
interface EventBase {
  runId: string;
  /** Milliseconds since the epoch. */
  time: number;
}

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

/** The exact body sent to the model (again on each retry). */
export interface ModelRequestEvent extends EventBase {
  type: "model_request";
  step: number;
  model: string;
  attempt: number;
  url?: string;
  /** The JSON body as it went over the wire (for test doubles: the normalized request). */
  body: unknown;
  /** Set for calls the loop makes besides the agent's own, e.g. `summary` for SummaryMemory. */
  purpose?: "summary";
}

/** A model call is being retried after a transient failure. */
export interface ModelRetryEvent extends EventBase {
  type: "model_retry";
  step: number;
  /** The number of the attempt about to be made (2 for the first retry). */
  attempt: number;
  /** The most attempts the model's retry policy allows, when it says. */
  maxAttempts?: number;
  delayMs: number;
  error: string;
}

/**
 * A fallback chain did not take `from`'s answer and moved on to `to` (absent: none was left);
 * `reason` says why (a 429, an overload, a 5xx, a timeout, a network failure, an open circuit
 * breaker, or the user's `on` rule).
 */
export interface ModelFallbackEvent extends EventBase {
  type: "model_fallback";
  step: number;
  from: string;
  to?: string;
  reason:
    | "rate_limited"
    | "overloaded"
    | "server_error"
    | "timeout"
    | "network"
    | "circuit_open"
    | "user_rule";
  error: string;
  status?: number;
  /** Milliseconds spent on `from`. */
  elapsedMs: number;
  purpose?: "summary";
}

/** A client-side rate limit (requests, tokens or concurrency per provider and key) held the call back. */
export interface RateLimitWaitEvent extends EventBase {
  type: "rate_limit_wait";
  step: number;
  model: string;
  key: string;
  limit: "rpm" | "tpm" | "concurrency";
  waitMs: number;
  purpose?: "summary";
}

/** The model's answer, raw and normalized. */
export interface ModelResponseEvent extends EventBase {
  type: "model_response";
  step: number;
  /** The model that answered, when a fallback chain chose it (its id, e.g. `openai:gpt-4o`). */
  model?: string;
  text: string;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: TokenUsage;
  latencyMs: number;
  /** The model's reasoning, as kept in the transcript (and sent back to the same provider). */
  reasoning?: ReasoningPart[];
  raw?: unknown;
  /** Set for calls the loop makes besides the agent's own, e.g. `summary` for SummaryMemory. */
  purpose?: "summary";
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

/** A piece of text while the model streams. */
export interface TextDeltaEvent extends EventBase {
  type: "text_delta";
  step: number;
  text: string;
}

/** A piece of the model's reasoning while it streams (thinking text or its summary). */
export interface ReasoningDeltaEvent extends EventBase {
  type: "reasoning_delta";
  step: number;
  text: string;
}

/**
 * A piece of a tool call's arguments while the model streams them. `index` tells the calls of one
 * response apart; `toolCallId` and `toolName` come with the piece that first carries them. The
 * whole, final call is in `model_response`, which is what runs.
 */
export interface ToolCallDeltaEvent extends EventBase {
  type: "tool_call_delta";
  step: number;
  index: number;
  toolCallId?: string;
  toolName?: string;
  argumentsDelta: string;
}

/**
 * The request left out reasoning that another provider produced (the transcript moved between
 * providers, and the new one cannot read the old one's thinking or signatures).
 */
export interface ReasoningDroppedEvent extends EventBase {
  type: "reasoning_dropped";
  step: number;
  /** Reasoning parts left out. */
  count: number;
  /** The providers that produced them. */
  from: string[];
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
  | ModelRequestEvent
  | ModelRetryEvent
  | ModelFallbackEvent
  | RateLimitWaitEvent
  | ModelResponseEvent
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ToolCallDeltaEvent
  | ReasoningDroppedEvent
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
