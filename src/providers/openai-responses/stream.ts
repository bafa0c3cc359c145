import { errorForStatus, ProviderProtocolError, StreamIncompleteError } from "../../models/errors.js";
import type { ModelDelta, ModelResponse } from "../../models/model.js";
import { fromResponsesBody } from "./response.js";
import type { ResponsesOutputItem, ResponsesResponse } from "./wire.js";

/** HTTP statuses the codes of a stream's `error` event stand for, so retries treat them alike. */
const STATUS_OF_CODE: Record<string, number> = {
  rate_limit_exceeded: 429,
  server_error: 500,
  internal_error: 500,
  server_is_overloaded: 503,
};

/**
 * Assembles a streamed Responses API answer from its typed events (`event:` names, the JSON in
 * `data:`): text, function-call argument and reasoning-summary deltas go to `onDelta` as they come;
 * the answer itself is the `response` of `response.completed` (or `response.incomplete`), with the
 * items of `response.output_item.done` standing in should that list be empty.
 */
export class ResponsesStreamAssembler {
  readonly #provider: string;
  readonly #onDelta: ((delta: ModelDelta) => void) | undefined;
  readonly #ordinals = new Map<number, number>();
  readonly #items = new Map<number, ResponsesOutputItem>();
  #final: ResponsesResponse | undefined;

  constructor(provider: string, onDelta?: (delta: ModelDelta) => void) {
    this.#provider = provider;
    this.#onDelta = onDelta;
  }

  /** True once the final response arrived; nothing after it needs reading. */
  get done(): boolean {
    return this.#final !== undefined;
  }

  /** Feeds one event's data (the `event:` name is also in the data's `type`). */
  push(data: string, name?: string): boolean {
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(data) as Record<string, unknown>;
    } catch (cause) {
      throw new ProviderProtocolError(
        `${this.#provider} sent a stream event that is not JSON`,
        { provider: this.#provider, excerpt: data.slice(0, 500) },
        { cause },
      );
    }
    if (event === null || typeof event !== "object" || Array.isArray(event))
      throw this.#bad("a stream event is not a JSON object", data);
    if (this.done) return true;
    const type = typeof event.type === "string" ? event.type : name;
    switch (type) {
      case "response.output_text.delta":
      case "response.refusal.delta":
        if (typeof event.delta === "string" && event.delta !== "")
          this.#onDelta?.({ type: "text", text: event.delta });
        return false;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        if (typeof event.delta === "string" && event.delta !== "")
          this.#onDelta?.({ type: "reasoning", text: event.delta });
        return false;
      case "response.output_item.added":
        this.#itemAdded(event);
        return false;
      case "response.function_call_arguments.delta": {
        const ordinal = this.#ordinals.get(event.output_index as number);
        if (ordinal === undefined || typeof event.delta !== "string")
          throw this.#bad(
            "function_call_arguments.delta for an output item that is not a function call",
            data,
          );
        if (event.delta !== "")
          this.#onDelta?.({ type: "tool_call", index: ordinal, argumentsDelta: event.delta });
        return false;
      }
      case "response.output_item.done":
        if (typeof event.output_index === "number" && event.item && typeof event.item === "object")
          this.#items.set(event.output_index, event.item as ResponsesOutputItem);
        return false;
      case "response.completed":
      case "response.incomplete":
        if (!event.response || typeof event.response !== "object")
          throw this.#bad(`${type} without a response`, data);
        this.#final = event.response as ResponsesResponse;
        return true;
      case "response.failed":
        throw this.#error((event.response as ResponsesResponse | undefined)?.error ?? {}, data);
      case "error":
        throw this.#error(event, data);
      default:
        // Lifecycle events (created, in_progress, content_part.*, *.done) carry nothing new.
        return false;
    }
  }

  /** The answer; throws when the stream ended before its final response. */
  finish(): ModelResponse {
    const final = this.#final;
    if (!final)
      throw new StreamIncompleteError(
        `${this.#provider}: the stream ended before response.completed; the answer may be cut short`,
        { provider: this.#provider },
      );
    const output =
      Array.isArray(final.output) && final.output.length > 0
        ? final.output
        : [...this.#items.entries()].sort((a, b) => a[0] - b[0]).map(([, item]) => item);
    return fromResponsesBody({ ...final, output }, this.#provider);
  }

  #itemAdded(event: Record<string, unknown>): void {
    const item = event.item as { type?: unknown; call_id?: unknown; name?: unknown } | undefined;
    if (typeof event.output_index !== "number" || !item)
      throw this.#bad("output_item.added without an item", event);
    if (item.type !== "function_call") return;
    const ordinal = this.#ordinals.size;
    this.#ordinals.set(event.output_index, ordinal);
    this.#onDelta?.({
      type: "tool_call",
      index: ordinal,
      ...(typeof item.call_id === "string" && { id: item.call_id }),
      ...(typeof item.name === "string" && { name: item.name }),
      argumentsDelta: "",
    });
  }

  #error(source: Record<string, unknown> | { code?: string; message?: string }, data: string) {
    const fields = source as { code?: unknown; message?: unknown; type?: unknown };
    const code = typeof fields.code === "string" ? fields.code : "";
    return errorForStatus({
      provider: this.#provider,
      status: STATUS_OF_CODE[code] ?? 200,
      body: { error: { code: fields.code, message: fields.message, type: fields.type } },
      excerpt: data.slice(0, 500),
    });
  }

  #bad(detail: string, received: unknown): ProviderProtocolError {
    const text = typeof received === "string" ? received : JSON.stringify(received);
    return new ProviderProtocolError(`${this.#provider} stream is malformed: ${detail}`, {
      provider: this.#provider,
      excerpt: (text ?? "").slice(0, 500),
    });
  }
}
