import { packedMap } from "../../core/packed-map.js";
import type { ToolCall } from "../../core/vocabulary/messages.js";
import {
  errorFields,
  errorForStatus,
  ProviderProtocolError,
  StreamIncompleteError,
} from "../../models/errors.js";
import type { ModelObserver, ModelResponse } from "../../models/model.js";
import { StreamedText } from "../../models/streamed-text.js";
import type { OpenAIQuirks } from "./quirks.js";
import { failedToolCall, recoveredResponse } from "./recover.js";
import {
  argumentsText,
  contentText,
  fillToolCallIds,
  finishReasonOf,
  reasoningPart,
  reasoningTextOf,
  textOf,
  toolCallEntries,
  usageOf,
} from "./response.js";
import type { ChatCompletionChunk, ChatUsage } from "./wire.js";

interface PartialCall {
  index: number;
  id: string;
  name: string;
  arguments: string;
}

/**
 * Assembles a streamed Chat Completion from its `data:` payloads: text deltas in order, tool calls
 * by their `index` across chunks, usage from whichever chunk carries it (the last one, with
 * `stream_options.include_usage`). Deltas go to the observer as they arrive.
 */
export class ChatStreamAssembler {
  readonly #provider: string;
  readonly #quirks: OpenAIQuirks;
  readonly #observer: ModelObserver;
  /** The answer's text (off V8's heap once it is long: see `StreamedText`). */
  readonly #text = new StreamedText();
  #refusal = "";
  readonly #reasoning = new StreamedText();
  readonly #calls = new Map<number, PartialCall>();
  #lastIndex = -1;
  #finish: string | null | undefined;
  #usage: ChatUsage | undefined;
  #model: string | undefined;
  #id: string | undefined;
  #done = false;
  #recovered: ModelResponse | undefined;

  constructor(provider: string, quirks: OpenAIQuirks, observer: ModelObserver) {
    this.#provider = provider;
    this.#quirks = quirks;
    this.#observer = observer;
  }

  /** Feeds one event's data; returns true once the stream is complete (`[DONE]`, or a recovered error). */
  push(data: string, event?: string): boolean {
    if (data === "[DONE]") {
      this.#done = true;
      return true;
    }
    let chunk: ChatCompletionChunk;
    try {
      chunk = JSON.parse(data) as ChatCompletionChunk;
    } catch (cause) {
      throw new ProviderProtocolError(
        `${this.#provider} sent a stream chunk that is not JSON`,
        { provider: this.#provider, excerpt: data.slice(0, 500) },
        { cause },
      );
    }
    if (typeof chunk !== "object" || chunk === null)
      throw new ProviderProtocolError(`${this.#provider} sent a stream chunk that is not an object`, {
        provider: this.#provider,
        excerpt: data.slice(0, 500),
      });
    if (chunk.error !== undefined || event === "error") return this.#fail(chunk, data);
    if (typeof chunk.model === "string") this.#model = chunk.model;
    if (typeof chunk.id === "string") this.#id ??= chunk.id;
    if (chunk.usage) this.#usage = chunk.usage;
    const choice = chunk.choices?.[0];
    if (!choice) return false;
    const delta = choice.delta;
    if (delta) {
      const piece = contentText(delta.content);
      if (piece !== "") {
        this.#text.append(piece);
        this.#observer.onDelta?.({ type: "text", text: piece });
      }
      if (typeof delta.refusal === "string") this.#refusal += delta.refusal;
      const thinking = reasoningTextOf(delta);
      if (thinking !== "") {
        this.#reasoning.append(thinking);
        this.#observer.onDelta?.({ type: "reasoning", text: thinking });
      }
      if (delta.tool_calls !== undefined && delta.tool_calls !== null)
        for (const call of toolCallEntries(delta.tool_calls, this.#provider)) this.#addCallDelta(call);
    }
    if (choice.finish_reason) this.#finish = choice.finish_reason;
    return false;
  }

  /** The assembled response; throws when the stream ended before it was complete. */
  finish(): ModelResponse {
    if (this.#recovered) return this.#recovered;
    if (!this.#done)
      throw new StreamIncompleteError(
        `${this.#provider}: the stream ended before [DONE]${this.#finish ? "" : " (no finish_reason either)"}; the answer may be cut short`,
        { provider: this.#provider },
      );
    const calls = packedMap(
      [...this.#calls.values()].sort((a, b) => a.index - b.index),
      (c): ToolCall => ({ id: c.id, name: c.name, arguments: c.arguments }),
    );
    const toolCalls = this.#quirks.fillToolCallIds ? fillToolCallIds(calls) : calls;
    const text = textOf(this.#text.toString(), this.#refusal);
    const reasoning = this.#reasoning.toString();
    // Built field by field, not with conditional spreads (this runs on every streamed call); the
    // keys keep their order.
    const response: ModelResponse = {
      text,
      toolCalls,
      usage: usageOf(this.#usage, this.#provider),
      finishReason: finishReasonOf(this.#finish, toolCalls.length > 0),
    };
    if (this.#model !== undefined) response.modelName = this.#model;
    if (reasoning !== "") response.reasoning = [reasoningPart(this.#provider, reasoning)];
    response.raw = this.#assembled(text, reasoning, toolCalls);
    return response;
  }

  #addCallDelta(delta: {
    index?: number;
    id?: string | null;
    function?: { name?: string | null; arguments?: unknown };
  }): void {
    // Servers that omit `index` send one call per id; a new id starts a new call.
    let index = delta.index;
    if (typeof index !== "number") {
      const last = this.#calls.get(this.#lastIndex);
      index = !last || (delta.id && last.id && delta.id !== last.id) ? this.#lastIndex + 1 : this.#lastIndex;
    }
    this.#lastIndex = Math.max(this.#lastIndex, index);
    let call = this.#calls.get(index);
    if (!call) {
      call = { index, id: "", name: "", arguments: "" };
      this.#calls.set(index, call);
    }
    const id = typeof delta.id === "string" && delta.id !== "" && call.id === "" ? delta.id : undefined;
    if (id !== undefined) call.id = id;
    const name = delta.function?.name;
    const named = typeof name === "string" && name !== "" && call.name === "" ? name : undefined;
    if (named !== undefined) call.name = named;
    const argumentsDelta = argumentsText(delta.function?.arguments);
    call.arguments += argumentsDelta;
    if (id !== undefined || named !== undefined || argumentsDelta !== "") {
      const onDelta = this.#observer.onDelta;
      if (onDelta === undefined) return;
      if (id === undefined && named === undefined) onDelta({ type: "tool_call", index, argumentsDelta });
      else
        onDelta({
          type: "tool_call",
          index,
          ...(id !== undefined && { id }),
          ...(named !== undefined && { name: named }),
          argumentsDelta,
        });
    }
  }

  #fail(chunk: ChatCompletionChunk, data: string): boolean {
    const call = this.#quirks.recoverToolUseFailed ? failedToolCall(chunk) : undefined;
    if (call) {
      this.#recovered = recoveredResponse(call, chunk, this.#text.toString());
      return true;
    }
    const status = (chunk.error as { status_code?: unknown } | undefined)?.status_code;
    const fields = errorFields(chunk);
    throw errorForStatus({
      provider: this.#provider,
      status: typeof status === "number" ? status : 200,
      body: chunk,
      excerpt: (fields.message ?? data).slice(0, 500),
    });
  }

  /** The Chat Completion the stream amounts to (`raw`), with the keys in the order the API sends them. */
  #assembled(text: string, reasoning: string, toolCalls: ToolCall[]): unknown {
    const message: Record<string, unknown> = { role: "assistant", content: text || null };
    if (reasoning !== "") message.reasoning_content = reasoning;
    if (toolCalls.length > 0)
      message.tool_calls = toolCalls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.arguments },
      }));
    const completion: Record<string, unknown> = {};
    if (this.#id !== undefined) completion.id = this.#id;
    completion.object = "chat.completion";
    if (this.#model !== undefined) completion.model = this.#model;
    completion.choices = [{ index: 0, message, finish_reason: this.#finish ?? null }];
    if (this.#usage !== undefined) completion.usage = this.#usage;
    return completion;
  }
}
