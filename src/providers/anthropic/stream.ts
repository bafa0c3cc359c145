import type { ReasoningPart, ToolCall } from "../../core/vocabulary/messages.js";
import type { ProviderProtocolError } from "../../models/errors.js";
import type { ModelDelta, ModelResponse } from "../../models/model.js";
import { StreamedText } from "../../models/streamed-text.js";
import { parseArguments } from "../../models/tool-arguments.js";
import { anthropicProtocolError } from "./protocol-error.js";
import { thinkingPart, toFinishReason, toTokenUsage } from "./response.js";
import type { AnthropicErrorBody, AnthropicMessage, AnthropicResponseBlock, AnthropicUsage } from "./wire.js";

type Block =
  // A text's and a thinking's deltas are kept off V8's heap as they grow (see StreamedText).
  | { kind: "text"; text: StreamedText }
  | { kind: "tool"; ordinal: number; id: string; name: string; json: string; initial: unknown }
  | { kind: "thinking"; start: Record<string, unknown>; thinking: StreamedText; signature: string }
  | { kind: "other"; start: Record<string, unknown> };

/** A stream's `error` event; `type` is Anthropic's error type, e.g. `overloaded_error`. */
export class AnthropicStreamErrorEvent extends Error {
  constructor(readonly body: AnthropicErrorBody) {
    super(body.error?.message ?? "stream error");
  }
}

/**
 * Assembles a streamed `/v1/messages` response from its events (the parsed `data:` JSON of each SSE
 * event), reporting text and tool-call deltas as they arrive. Out-of-spec streams end in a typed
 * error or are survived on purpose: a repeated `message_start` for the same message is ignored (a
 * gateway duplicated the frame); one for a different message while the first is still open means
 * two generations were spliced into one body, which cannot be told apart safely, so it is an error.
 */
export class AnthropicStreamAssembler {
  #message: { id?: string; model?: string } | undefined;
  #usage: AnthropicUsage = {};
  #stopReason: string | null = null;
  #stopped = false;
  readonly #blocks = new Map<number, Block>();
  readonly #order: number[] = [];
  #tools = 0;

  constructor(private readonly onDelta?: (delta: ModelDelta) => void) {}

  /** True once `message_stop` arrived; later bytes need not be read. */
  get done(): boolean {
    return this.#stopped;
  }

  /** Feeds one event. Throws `AnthropicStreamErrorEvent` for an `error` event. */
  push(event: unknown): void {
    if (event === null || typeof event !== "object") throw this.#bad("an event is not a JSON object", event);
    const e = event as Record<string, unknown>;
    if (this.#stopped) return;
    switch (e.type) {
      case "message_start":
        this.#start(e);
        return;
      case "content_block_start":
        this.#blockStart(e);
        return;
      case "content_block_delta":
        this.#blockDelta(e);
        return;
      case "content_block_stop":
        return;
      case "message_delta": {
        this.#requireStarted(e);
        const delta = e.delta as { stop_reason?: string | null } | undefined;
        if (delta?.stop_reason != null) this.#stopReason = delta.stop_reason;
        this.#mergeUsage(e.usage);
        return;
      }
      case "message_stop":
        this.#requireStarted(e);
        this.#stopped = true;
        return;
      case "error":
        throw new AnthropicStreamErrorEvent(e as unknown as AnthropicErrorBody);
      default:
        // `ping` and event types Anthropic adds later carry nothing glassloop needs.
        return;
    }
  }

  /** The assembled response; throws when the stream ended before `message_stop`. */
  finish(): ModelResponse {
    if (!this.#message) throw this.#bad("the stream ended before message_start");
    if (!this.#stopped) throw this.#bad("the stream ended before message_stop (cut off)");
    let text = "";
    const toolCalls: ToolCall[] = [];
    const reasoning: ReasoningPart[] = [];
    const content: AnthropicResponseBlock[] = [];
    for (const index of this.#order) {
      const block = this.#blocks.get(index) as Block;
      if (block.kind === "thinking") {
        const whole = {
          ...block.start,
          thinking: block.thinking.toString(),
          signature: block.signature,
          type: "thinking",
        };
        const part = thinkingPart(whole);
        if (!part || block.signature === "") throw this.#bad("a thinking block ended without a signature");
        reasoning.push(part);
        content.push(whole as AnthropicResponseBlock);
      } else if (block.kind === "text") {
        const blockText = block.text.toString();
        text += blockText;
        content.push({ type: "text", text: blockText });
      } else if (block.kind === "tool") {
        const args = toolArguments(block);
        toolCalls.push({ id: block.id, name: block.name, arguments: args });
        content.push({ type: "tool_use", id: block.id, name: block.name, input: parseArguments(args) });
      } else {
        if (block.start.type === "redacted_thinking") {
          const part = thinkingPart(block.start);
          if (!part) throw this.#bad("a redacted_thinking block has no data");
          reasoning.push(part);
        }
        content.push(block.start as AnthropicResponseBlock);
      }
    }
    const raw: AnthropicMessage = {
      ...(this.#message.id !== undefined && { id: this.#message.id }),
      type: "message",
      role: "assistant",
      ...(this.#message.model !== undefined && { model: this.#message.model }),
      content,
      stop_reason: this.#stopReason,
      usage: this.#usage,
    };
    return {
      text,
      toolCalls,
      usage: toTokenUsage(this.#usage),
      finishReason: toFinishReason(this.#stopReason, toolCalls.length > 0),
      ...(this.#message.model !== undefined && { modelName: this.#message.model }),
      ...(reasoning.length > 0 && { reasoning }),
      raw,
    };
  }

  #start(e: Record<string, unknown>): void {
    const message = (e.message ?? {}) as AnthropicMessage;
    const id = typeof message.id === "string" ? message.id : undefined;
    if (this.#message) {
      if (id === this.#message.id) return;
      throw this.#bad(
        `a second message (${id ?? "no id"}) started inside message ${this.#message.id ?? "(no id)"}: two generations were spliced into one stream`,
        e,
      );
    }
    this.#message = { ...(id !== undefined && { id }), ...(message.model && { model: message.model }) };
    this.#mergeUsage(message.usage);
  }

  #blockStart(e: Record<string, unknown>): void {
    this.#requireStarted(e);
    const index = e.index;
    const start = e.content_block as Record<string, unknown> | undefined;
    if (typeof index !== "number" || !start || typeof start.type !== "string")
      throw this.#bad("content_block_start without an index or a block", e);
    if (this.#blocks.has(index)) throw this.#bad(`content block ${index} started twice`, e);
    let block: Block;
    if (start.type === "text") {
      const first = typeof start.text === "string" ? start.text : "";
      block = { kind: "text", text: new StreamedText() };
      block.text.append(first);
      if (first) this.onDelta?.({ type: "text", text: first });
    } else if (start.type === "tool_use") {
      if (typeof start.name !== "string" || start.name === "")
        throw this.#bad("a tool_use block has no name", e);
      const id = typeof start.id === "string" ? start.id : "";
      block = { kind: "tool", ordinal: this.#tools++, id, name: start.name, json: "", initial: start.input };
      this.onDelta?.({ type: "tool_call", index: block.ordinal, id, name: start.name, argumentsDelta: "" });
    } else if (start.type === "thinking") {
      const thinking = typeof start.thinking === "string" ? start.thinking : "";
      const signature = typeof start.signature === "string" ? start.signature : "";
      block = { kind: "thinking", start, thinking: new StreamedText(), signature };
      block.thinking.append(thinking);
      if (thinking) this.onDelta?.({ type: "reasoning", text: thinking });
    } else block = { kind: "other", start };
    this.#blocks.set(index, block);
    this.#order.push(index);
  }

  #blockDelta(e: Record<string, unknown>): void {
    this.#requireStarted(e);
    const delta = e.delta as
      | { type?: string; text?: unknown; partial_json?: unknown; thinking?: unknown; signature?: unknown }
      | undefined;
    const block = typeof e.index === "number" ? this.#blocks.get(e.index) : undefined;
    if (!delta || typeof delta.type !== "string") throw this.#bad("content_block_delta without a delta", e);
    if (delta.type === "text_delta") {
      if (block?.kind !== "text" || typeof delta.text !== "string")
        throw this.#bad(`text_delta for block ${String(e.index)}, which is not an open text block`, e);
      block.text.append(delta.text);
      if (delta.text) this.onDelta?.({ type: "text", text: delta.text });
    } else if (delta.type === "input_json_delta") {
      if (block?.kind !== "tool" || typeof delta.partial_json !== "string")
        throw this.#bad(
          `input_json_delta for block ${String(e.index)}, which is not an open tool_use block`,
          e,
        );
      block.json += delta.partial_json;
      if (delta.partial_json)
        this.onDelta?.({ type: "tool_call", index: block.ordinal, argumentsDelta: delta.partial_json });
    } else if (delta.type === "thinking_delta" || delta.type === "signature_delta") {
      const piece = delta.type === "thinking_delta" ? delta.thinking : delta.signature;
      if (block?.kind !== "thinking" || typeof piece !== "string")
        throw this.#bad(`${delta.type} for block ${String(e.index)}, which is not an open thinking block`, e);
      if (delta.type === "signature_delta") block.signature += piece;
      else {
        block.thinking.append(piece);
        if (piece) this.onDelta?.({ type: "reasoning", text: piece });
      }
    }
    // citations_delta: not part of glassloop's transcript.
  }

  #mergeUsage(usage: unknown): void {
    if (usage === null || typeof usage !== "object") return;
    // message_delta carries cumulative counts; a field it repeats replaces the earlier value. Any
    // non-null value of a count is kept, numbers or not, so the one usage rule (toTokenUsage)
    // judges it: a server that sends `{}` for a count gets a protocol error, not a silent 0.
    const counts = this.#usage as Record<string, unknown>;
    for (const key of USAGE_FIELDS) {
      const value = (usage as Record<string, unknown>)[key];
      if (value !== undefined && value !== null) counts[key] = value;
    }
  }

  #requireStarted(e: unknown): void {
    if (!this.#message) throw this.#bad("an event arrived before message_start", e);
  }

  #bad(detail: string, received?: unknown): ProviderProtocolError {
    return anthropicProtocolError(detail, received);
  }
}

/** Streamed input JSON; a block with no deltas has its (usually empty) initial `input`. */
function toolArguments(block: Extract<Block, { kind: "tool" }>): string {
  if (block.json.trim() !== "") return block.json;
  return JSON.stringify(block.initial ?? {});
}

/** The counts of Anthropic's usage object (other fields, e.g. `service_tier`, are not counts). */
const USAGE_FIELDS = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
] as const satisfies readonly (keyof AnthropicUsage)[];
