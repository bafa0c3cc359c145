import type { Message } from "../core/vocabulary/messages.js";
import { type Encoder, encodingFor, loadEncoder, type TokenEncoding } from "../models/tokenizer.js";

// The tokenizer lives with the models (their counts use it too); memory re-exports what it always had.
/** The BPE encoding for an OpenAI-family model id, or `estimate`. */
export { encodingFor };

/** Characters per token assumed by the fallback estimate; on the low side, so trimming errs toward fitting. */
export const CHARS_PER_TOKEN = 3.5;

// Per-message framing the chat formats add (role markers, separators), as OpenAI documents it.
const MESSAGE_OVERHEAD = 4;
const REQUEST_OVERHEAD = 3;

/** The fallback: characters divided by {@link CHARS_PER_TOKEN}, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function encoderFor(encoding: TokenEncoding): Promise<Encoder> {
  return encoding === "estimate" ? Promise.resolve(estimateTokens) : loadEncoder(encoding);
}

/**
 * Counts the tokens of what goes to a model: exactly (BPE) for OpenAI-family models, by estimate
 * for others. Both are then calibrated with the input tokens the provider reports, so counts
 * track the real tokenizer and the wire format's overhead after the first response.
 */
export class TokenCounter {
  readonly encoding: TokenEncoding;
  readonly #encode: Encoder;
  #ratio = 1;

  private constructor(encoding: TokenEncoding, encode: Encoder) {
    this.encoding = encoding;
    this.#encode = encode;
  }

  /** A counter for `modelId`, loading its tokenizer if it has one. */
  static async forModel(modelId: string): Promise<TokenCounter> {
    const encoding = encodingFor(modelId);
    return new TokenCounter(encoding, await encoderFor(encoding));
  }

  /** A counter that only estimates (no tokenizer to load). */
  static estimating(): TokenCounter {
    return new TokenCounter("estimate", estimateTokens);
  }

  /** How far the provider's counts differ from ours (reported / counted), 1 until calibrated. */
  get ratio(): number {
    return this.#ratio;
  }

  /** Tokens of a piece of text. */
  text(text: string): number {
    return Math.ceil(this.#raw(text) * this.#ratio);
  }

  /** Tokens of one message, framing included. */
  message(message: Message): number {
    return Math.ceil(this.#rawMessage(message) * this.#ratio);
  }

  /** Tokens of a whole request: instructions, tool definitions and messages. */
  request(request: {
    instructions?: string;
    tools?: readonly unknown[];
    messages: readonly Message[];
  }): number {
    return Math.ceil(this.#rawRequest(request) * this.#ratio);
  }

  /**
   * Learns from the input tokens a provider reported for a request. The ratio is smoothed and
   * bounded so one odd response (a cached prompt, a provider that counts differently) cannot
   * swing trimming wildly.
   */
  calibrate(
    request: { instructions?: string; tools?: readonly unknown[]; messages: readonly Message[] },
    reportedInputTokens: number,
  ): void {
    const counted = this.#rawRequest(request);
    if (!(reportedInputTokens > 0) || counted <= 0) return;
    const observed = Math.min(4, Math.max(0.25, reportedInputTokens / counted));
    this.#ratio = this.#ratio === 1 ? observed : 0.5 * this.#ratio + 0.5 * observed;
  }

  #raw(text: string): number {
    return text.length === 0 ? 0 : this.#encode(text);
  }

  #rawMessage(message: Message): number {
    let n = MESSAGE_OVERHEAD + this.#raw(message.content);
    if (message.role === "assistant")
      for (const call of message.toolCalls ?? [])
        n += MESSAGE_OVERHEAD + this.#raw(call.name) + this.#raw(call.arguments) + this.#raw(call.id);
    if (message.role === "tool") n += this.#raw(message.toolCallId);
    return n;
  }

  #rawRequest(request: {
    instructions?: string;
    tools?: readonly unknown[];
    messages: readonly Message[];
  }): number {
    let n = REQUEST_OVERHEAD;
    if (request.instructions) n += MESSAGE_OVERHEAD + this.#raw(request.instructions);
    if (request.tools?.length) n += this.#raw(JSON.stringify(request.tools));
    for (const m of request.messages) n += this.#rawMessage(m);
    return n;
  }
}
