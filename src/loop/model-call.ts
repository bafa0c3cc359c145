import { ModelCallError, RunError } from "../core/errors.js";
import { attachStop, type RunStop, type Stop } from "../core/stop.js";
import type { EventInit, ModelRequestEvent, ModelResponseEvent } from "../core/vocabulary/events.js";
import type { AssistantMessage, Message, ToolCall } from "../core/vocabulary/messages.js";
import type { Model, ModelDelta, ModelObserver, ModelRequest, ModelResponse } from "../models/model.js";
import type { RunState, StepRequest } from "./hooks.js";
import { abortError, errorState, silent } from "./run-state.js";

/** Marks a model call the loop makes besides the agent's own, e.g. `summary` for SummaryMemory. */
export type CallPurpose = NonNullable<ModelResponseEvent["purpose"]>;

/** The generation settings every request of the agent's own calls carries. */
export interface CallSettings {
  stream: boolean;
  maxOutputTokens?: number;
  temperature?: number;
}

/**
 * The request of a step's model call: the parts the hooks shaped plus the agent's settings and the
 * run's signal.
 */
export function stepRequest(parts: StepRequest, settings: CallSettings, stop: RunStop): ModelRequest {
  // Built by assignment, in the key order of the literal it replaces (a replayed or recorded
  // request shows its keys in this order): a literal with conditional spreads is several times
  // slower, and this runs every step.
  const request: Omit<ModelRequest, "signal"> =
    parts.instructions !== undefined
      ? { instructions: parts.instructions, messages: parts.messages, tools: parts.tools }
      : { messages: parts.messages, tools: parts.tools };
  if (parts.toolChoice !== undefined) request.toolChoice = parts.toolChoice;
  request.stream = settings.stream;
  if (settings.maxOutputTokens !== undefined) request.maxOutputTokens = settings.maxOutputTokens;
  if (settings.temperature !== undefined) request.temperature = settings.temperature;
  // The run's signal is made only if the model reads it; glassloop's own models watch the stop.
  return attachStop(request, stop);
}

/**
 * The one model call of a run, for a step's answer and for a call besides it (a summary: `purpose`):
 * events out, raced with the run's signal, every request sent counted (a failed one too), usage
 * counted and checked, a failure as a RunError.
 */
export async function callModel(
  state: RunState<unknown>,
  step: number,
  request: ModelRequest,
  purpose?: CallPurpose,
  model: Model = state.model,
): Promise<ModelResponse> {
  const started = performance.now();
  const sent = { count: 0 };
  const generation = model.generate(request, callObserver(state, step, model.id, purpose, sent));
  let response: ModelResponse;
  try {
    // Raced with the run's stop so a model that ignores its signal still cannot hold the run.
    response = await raceAbort(generation, state.stop);
  } catch (error) {
    generation.catch(() => {});
    // Attempts that failed were requests all the same: `3 requests` after three refused
    // connections, not 0. A model that reports no attempt made one.
    state.meter.addRequests(Math.max(1, sent.count));
    throw callError(state, error);
  }
  // The answer counts one request; the attempts retried before it count too.
  if (sent.count > 1) state.meter.addRequests(sent.count - 1);
  recordResponse(state, step, response, started, purpose, model.id);
  return response;
}

/**
 * Turns what a model reports during a call into the run's events: each request sent (counted in
 * `sent`, one per attempt), each retry, and the deltas of the agent's own answer (a summary's text
 * is not the answer). Nobody listening, it only counts.
 */
function callObserver(
  state: RunState<unknown>,
  step: number,
  modelId: string,
  purpose: CallPurpose | undefined,
  sent: { count: number },
): ModelObserver {
  const { emit } = state;
  if (emit === silent)
    return {
      onRequest() {
        sent.count++;
      },
    };
  // A side call's events say what it was for.
  const tag = purpose === undefined ? undefined : { purpose };
  // Methods rather than arrow properties: the same closures, without a per-call name definition
  // when the code runs through a loader that keeps function names (tsx, the bench).
  const observer: ModelObserver = {
    onRequest({ body, url, attempt, model }) {
      sent.count++;
      // Assigned in the key order of a literal with conditional spreads, without its slow path.
      const event: EventInit<ModelRequestEvent> = {
        type: "model_request",
        step,
        model: model ?? modelId,
        attempt,
        body,
      };
      if (url !== undefined) event.url = url;
      if (purpose !== undefined) event.purpose = purpose;
      emit(event);
    },
    onRetry({ attempt, maxAttempts, delayMs, error }) {
      emit({
        type: "model_retry",
        step,
        attempt,
        ...(maxAttempts !== undefined && { maxAttempts }),
        delayMs,
        error,
      });
    },
    onReasoningDropped({ count, from }) {
      emit({ type: "reasoning_dropped", step, count, from });
    },
    onFallback({ from, to, reason, error, status, elapsedMs }) {
      emit({
        type: "model_fallback",
        step,
        from,
        ...(to !== undefined && { to }),
        reason,
        error,
        ...(status !== undefined && { status }),
        elapsedMs,
        ...tag,
      });
    },
    onRateLimitWait({ model, key, limit, waitMs }) {
      emit({ type: "rate_limit_wait", step, model, key, limit, waitMs, ...tag });
    },
  };
  if (purpose === undefined) observer.onDelta = (delta) => emitDelta(emit, step, delta);
  return observer;
}

/** One delta of the agent's own answer as its event (an empty text or reasoning piece as none). */
function emitDelta(emit: RunState<unknown>["emit"], step: number, delta: ModelDelta): void {
  if (delta.type === "text") {
    if (delta.text) emit({ type: "text_delta", step, text: delta.text });
  } else if (delta.type === "reasoning") {
    if (delta.text) emit({ type: "reasoning_delta", step, text: delta.text });
  } else {
    emit({
      type: "tool_call_delta",
      step,
      index: delta.index,
      ...(delta.id !== undefined && { toolCallId: delta.id }),
      ...(delta.name !== undefined && { toolName: delta.name }),
      argumentsDelta: delta.argumentsDelta,
    });
  }
}

/** The error that ends the run for a failed model call: the abort or timeout if the signal fired. */
function callError(state: RunState<unknown>, error: unknown): RunError {
  if (state.stop.aborted) return abortError(state);
  return error instanceof RunError ? error : new ModelCallError(error, errorState(state));
}

/**
 * Counts a model call's usage and reports its answer in a `model_response` event. Usage that breaks
 * the one rule of models/usage-check.ts (any `Model`, a user's own included) ends the run with a
 * `ModelCallError` whose cause is a `ProviderProtocolError`: a budget never shrinks.
 */
function recordResponse(
  state: RunState<unknown>,
  step: number,
  response: ModelResponse,
  startedMs: number,
  purpose?: CallPurpose,
  modelId: string = state.model.id,
): void {
  try {
    state.meter.addModelCall(response.usage, response.answeredBy ?? modelId, response.price);
  } catch (error) {
    // The request was made all the same; only its impossible numbers are left out.
    state.meter.addRequests(1);
    throw callError(state, error);
  }
  if (state.emit === silent) return;
  // Assigned in the key order of a literal with conditional spreads, without its slow path.
  const { text, toolCalls, finishReason, usage } = response;
  const latencyMs = performance.now() - startedMs;
  const event: EventInit<ModelResponseEvent> =
    response.answeredBy === undefined
      ? { type: "model_response", step, text, toolCalls, finishReason, usage, latencyMs }
      : {
          type: "model_response",
          step,
          model: response.answeredBy,
          text,
          toolCalls,
          finishReason,
          usage,
          latencyMs,
        };
  if (response.reasoning !== undefined && response.reasoning.length > 0) event.reasoning = response.reasoning;
  if (response.raw !== undefined) event.raw = response.raw;
  if (purpose !== undefined) event.purpose = purpose;
  state.emit(event);
}

/** `promise`, or a rejection as soon as `stop` fires; the watcher never outlives the call. */
export function raceAbort<T>(promise: Promise<T>, stop: Stop): Promise<T> {
  if (stop.aborted) return Promise.reject(stop.reason);
  // One promise and one watcher object per call (not race + finally + a second promise): this
  // runs every step.
  return new Promise<T>((resolve, reject) => {
    const watcher = {
      handleEvent() {
        reject(stop.reason);
      },
    };
    stop.watch(watcher);
    promise.then(
      (value) => {
        stop.unwatch(watcher);
        resolve(value);
      },
      (error: unknown) => {
        stop.unwatch(watcher);
        reject(error);
      },
    );
  });
}

/** The assistant message for a response; empty or duplicate call ids are replaced so pairing holds. */
export function toAssistantMessage(
  response: ModelResponse,
  step: number,
  transcript: readonly Message[],
): AssistantMessage {
  const message: AssistantMessage = { role: "assistant", content: response.text };
  if (response.toolCalls.length > 0) message.toolCalls = uniqueIds(response.toolCalls, step, transcript);
  // Kept in the transcript so the next request can give it back to the provider that made it.
  if (response.reasoning !== undefined && response.reasoning.length > 0)
    message.reasoning = response.reasoning;
  return message;
}

/** The answer's calls, copied, each with an id new to its answer and to the transcript. */
function uniqueIds(calls: readonly ToolCall[], step: number, transcript: readonly Message[]): ToolCall[] {
  const only = calls.length === 1 ? calls[0] : undefined;
  // The common turn, one call with an id: nothing it could collide with in its own message.
  if (only?.id) return [{ id: only.id, name: only.name, arguments: only.arguments }];
  const seen = new Set<string>();
  let earlier: Set<string> | undefined;
  // Only a missing or repeated id needs the transcript's ids (a generated one must be new to it).
  const taken = (id: string) => {
    earlier ??= idsIn(transcript);
    return seen.has(id) || earlier.has(id);
  };
  return calls.map((call, i) => {
    let id = call.id;
    if (!id || seen.has(id)) {
      // A generated id must not collide with one the model sent, nor with one already in the
      // transcript (an earlier run this one continues generated ids too).
      id = "";
      for (let n = i; !id || taken(id); n++) id = `call_${step}_${n}`;
    }
    seen.add(id);
    return { id, name: call.name, arguments: call.arguments };
  });
}

/** Ids of every tool call already in the transcript. */
function idsIn(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const m of messages) if (m.role === "assistant") for (const c of m.toolCalls ?? []) ids.add(c.id);
  return ids;
}
