import type { FinishReason, ReasoningPart, ToolCall } from "../../core/vocabulary/messages.js";
import type { TokenUsage } from "../../core/vocabulary/usage.js";
import { errorForStatus, ProviderProtocolError, StreamIncompleteError } from "../../models/errors.js";
import type { ModelDelta, ModelResponse } from "../../models/model.js";
import { StreamedText } from "../../models/streamed-text.js";
import { checkedTokenUsage, reportedCount } from "../../models/usage-check.js";
import { freshToolCallId } from "../openai/response.js";
import { GeminiBlockedError } from "./errors.js";
import { GEMINI_PROVIDER } from "./request.js";
import type { GeminiPart, GeminiResponse, GeminiUsage } from "./wire.js";

// Finish reasons that mean a filter stopped the answer.
const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "LANGUAGE",
]);

/**
 * Collects the parts of one Gemini answer, whole or streamed chunk by chunk: answer text joined,
 * thought text joined into one reasoning part, function calls in order (with a fresh id when
 * Gemini gave none), and each `thoughtSignature` kept with the part it came on.
 */
export class GeminiAnswer {
  readonly #provider: string;
  readonly #onDelta: ((delta: ModelDelta) => void) | undefined;
  /** The answer's text (off V8's heap once it is long: see StreamedText). */
  readonly #text = new StreamedText();
  #thought: ReasoningPart | undefined;
  #textSignature: string | undefined;
  readonly #calls: ToolCall[] = [];
  readonly #callSignatures: ReasoningPart[] = [];
  readonly #parts: GeminiPart[] = [];
  #finish: string | undefined;
  #usage: GeminiUsage | undefined;
  #model: string | undefined;
  #id: string | undefined;
  #sawCandidate = false;

  constructor(provider: string, onDelta?: (delta: ModelDelta) => void) {
    this.#provider = provider;
    this.#onDelta = onDelta;
  }

  /** True once a chunk carried the finish reason. */
  get finished(): boolean {
    return this.#finish !== undefined;
  }

  /** Adds one body or stream chunk. A blocked prompt or an emptied answer throws `GeminiBlockedError`. */
  add(body: unknown): void {
    if (body === null || typeof body !== "object" || Array.isArray(body))
      throw new ProviderProtocolError(`${this.#provider} sent a response that is not a JSON object`, {
        provider: this.#provider,
        body,
      });
    const chunk = body as GeminiResponse & { error?: unknown };
    if (chunk.error !== undefined)
      throw errorForStatus({
        provider: this.#provider,
        status: statusOf(chunk.error),
        body: chunk,
        excerpt: JSON.stringify(chunk).slice(0, 500),
      });
    if (typeof chunk.modelVersion === "string") this.#model = chunk.modelVersion;
    if (typeof chunk.responseId === "string") this.#id ??= chunk.responseId;
    if (chunk.usageMetadata) this.#usage = chunk.usageMetadata;
    const blocked = chunk.promptFeedback?.blockReason;
    if (blocked) throw new GeminiBlockedError(blocked, "prompt", { provider: this.#provider, body: chunk });
    const candidate = chunk.candidates?.[0];
    if (!candidate) return;
    this.#sawCandidate = true;
    for (const part of candidate.content?.parts ?? []) this.#addPart(part);
    if (typeof candidate.finishReason === "string") this.#finish = candidate.finishReason;
  }

  /** The answer; `requireFinish` for streams, whose only end marker is the finish reason. */
  finish(requireFinish: boolean): ModelResponse {
    if (requireFinish && this.#finish === undefined)
      throw new StreamIncompleteError(
        `${this.#provider}: the stream ended before a finishReason; the answer may be cut short`,
        { provider: this.#provider },
      );
    if (!this.#sawCandidate)
      throw new ProviderProtocolError(`${this.#provider} response has no candidate`, {
        provider: this.#provider,
        body: this.raw(),
      });
    const finish = this.#finish ?? "";
    if (FILTERED.has(finish) && this.#text.length === 0 && this.#calls.length === 0)
      throw new GeminiBlockedError(finish, "response", { provider: this.#provider, body: this.raw() });
    const reasoning: ReasoningPart[] = [];
    if (this.#thought) reasoning.push(this.#thought);
    if (this.#textSignature !== undefined)
      reasoning.push({
        type: "reasoning",
        provider: GEMINI_PROVIDER,
        text: "",
        signature: this.#textSignature,
        anchor: "text",
      });
    reasoning.push(...this.#callSignatures);
    return {
      text: this.#text.toString(),
      toolCalls: this.#calls,
      usage: usageOf(this.#usage),
      finishReason: finishReasonOf(finish, this.#calls.length > 0),
      ...(this.#model !== undefined && { modelName: this.#model }),
      ...(reasoning.length > 0 && { reasoning }),
      raw: this.raw(),
    };
  }

  /** The answer as one response body (for streams: the chunks assembled), for traces. */
  raw(): GeminiResponse {
    return {
      candidates: [
        {
          content: { role: "model", parts: this.#parts },
          ...(this.#finish !== undefined && { finishReason: this.#finish }),
        },
      ],
      ...(this.#usage !== undefined && { usageMetadata: this.#usage }),
      ...(this.#model !== undefined && { modelVersion: this.#model }),
      ...(this.#id !== undefined && { responseId: this.#id }),
    };
  }

  #addPart(part: GeminiPart): void {
    if (part === null || typeof part !== "object")
      throw new ProviderProtocolError(`${this.#provider} sent a part that is not an object`, {
        provider: this.#provider,
      });
    const signature = typeof part.thoughtSignature === "string" ? part.thoughtSignature : undefined;
    if (part.functionCall) {
      const { name, args, id } = part.functionCall;
      if (typeof name !== "string" || name === "")
        throw new ProviderProtocolError(`${this.#provider} sent a functionCall without a name`, {
          provider: this.#provider,
        });
      // Gemini 2.x gives no ids; a fresh one pairs the call with its response and its signature.
      const call: ToolCall = {
        id: typeof id === "string" && id !== "" ? id : freshToolCallId(),
        name,
        arguments: JSON.stringify(args ?? {}),
      };
      this.#onDelta?.({
        type: "tool_call",
        index: this.#calls.length,
        id: call.id,
        name,
        argumentsDelta: call.arguments,
      });
      this.#calls.push(call);
      if (signature !== undefined)
        this.#callSignatures.push({
          type: "reasoning",
          provider: GEMINI_PROVIDER,
          text: "",
          signature,
          anchor: { toolCallId: call.id },
        });
      this.#parts.push({ ...part, functionCall: { ...part.functionCall, id: call.id } });
      return;
    }
    if (typeof part.text !== "string") {
      // Parts glassloop does not use (inline data, executable code) stay in `raw`.
      this.#parts.push(part);
      return;
    }
    if (part.thought === true) {
      this.#thought ??= { type: "reasoning", provider: GEMINI_PROVIDER, text: "" };
      this.#thought.text += part.text;
      if (signature !== undefined) this.#thought.signature = signature;
      if (part.text) this.#onDelta?.({ type: "reasoning", text: part.text });
    } else {
      this.#text.append(part.text);
      if (signature !== undefined) this.#textSignature = signature;
      if (part.text) this.#onDelta?.({ type: "text", text: part.text });
    }
    this.#parts.push(part);
  }
}

/** Gemini's usage: thoughts are output beside the candidates, and counted as reasoning. */
export function usageOf(usage: GeminiUsage | undefined): TokenUsage {
  // Every number through the one rule (models/usage-check.ts): a lying server is a protocol error.
  const count = (field: keyof GeminiUsage) => reportedCount(usage?.[field], field, GEMINI_PROVIDER);
  const inputTokens = count("promptTokenCount") + count("toolUsePromptTokenCount");
  const thoughts = count("thoughtsTokenCount");
  const cached = count("cachedContentTokenCount");
  return checkedTokenUsage(
    {
      inputTokens,
      outputTokens: count("candidatesTokenCount") + thoughts,
      ...(cached > 0 && { cachedInputTokens: cached }),
      ...(thoughts > 0 && { reasoningTokens: thoughts }),
    },
    GEMINI_PROVIDER,
  );
}

function finishReasonOf(reason: string, hasCalls: boolean): FinishReason {
  if (hasCalls) return "tool_calls";
  if (reason === "STOP") return "stop";
  if (reason === "MAX_TOKENS") return "length";
  if (FILTERED.has(reason)) return "content_filter";
  if (reason === "MALFORMED_FUNCTION_CALL" || reason === "UNEXPECTED_TOOL_CALL") return "error";
  return reason === "" ? "stop" : "other";
}

function statusOf(error: unknown): number {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" && code >= 400 ? code : 200;
}
