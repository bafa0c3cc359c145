import { GlassloopError } from "../core/errors.js";
import type { FinishReason, ToolCall } from "../core/vocabulary/messages.js";
import type { TokenUsage } from "../core/vocabulary/usage.js";
import type { ModelObserver, ModelRequest, ModelResponse } from "../models/model.js";

/** A tool call in a script; `args` may be an object or raw text (to script invalid JSON). */
export interface ScriptedToolCall {
  name: string;
  args?: Record<string, unknown> | string;
  id?: string;
}

/** One scripted model answer: text, tool calls, or both, optionally after a delay. */
export interface ScriptedReply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  usage?: Partial<TokenUsage>;
  finishReason?: FinishReason;
  /** Wait this long first (`Infinity` hangs until the run's signal fires). */
  delayMs?: number;
}

/** A scripted failure: the model call rejects with `error`, optionally after a delay. */
export interface ScriptedFailure {
  error: Error | string;
  delayMs?: number;
}

/** One step of a script. */
export type ScriptStep = ScriptedReply | ScriptedFailure;

/** A ScriptedModel was called more often than its script allows. */
export class ScriptExhaustedError extends GlassloopError {
  constructor(message: string) {
    super("script_exhausted", message);
  }
}

/** The body a test double reports as "sent": the request as plain JSON, without the signal. */
export function requestBody(modelId: string, request: ModelRequest): Record<string, unknown> {
  const { signal: _signal, ...rest } = request;
  return { model: modelId, ...structuredClone(rest) };
}

/** Rough token count for test doubles: one token per four characters. */
export function roughTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Plays one script step: waits, fails or answers, streaming deltas when asked. */
export async function playStep(
  step: ScriptStep,
  request: ModelRequest,
  observer: ModelObserver,
  nextId: () => string,
): Promise<ModelResponse> {
  if (step.delayMs) await sleep(step.delayMs, request.signal);
  if ("error" in step) throw typeof step.error === "string" ? new Error(step.error) : step.error;
  const text = step.text ?? "";
  const toolCalls: ToolCall[] = (step.toolCalls ?? []).map((c) => ({
    id: c.id ?? nextId(),
    name: c.name,
    arguments: typeof c.args === "string" ? c.args : JSON.stringify(c.args ?? {}),
  }));
  if (request.stream) {
    for (const piece of text.match(/\S+\s*|\s+/g) ?? []) observer.onDelta?.({ type: "text", text: piece });
    for (const [index, c] of toolCalls.entries()) {
      observer.onDelta?.({ type: "tool_call", index, id: c.id, name: c.name, argumentsDelta: c.arguments });
    }
  }
  const output = text + toolCalls.map((c) => c.name + c.arguments).join("");
  const usage: TokenUsage = {
    inputTokens:
      step.usage?.inputTokens ?? roughTokens(JSON.stringify(request.messages) + (request.instructions ?? "")),
    outputTokens: step.usage?.outputTokens ?? roughTokens(output),
    ...(step.usage?.cachedInputTokens !== undefined && { cachedInputTokens: step.usage.cachedInputTokens }),
  };
  return {
    text,
    toolCalls,
    usage,
    finishReason: step.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
    raw: { text, toolCalls, usage },
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    function done() {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
