/**
 * Bedrock Converse answers, whole (`/converse`) or streamed (`/converse-stream`, its event-stream
 * messages arriving here as named events): text, tool uses, reasoning with its signature, the stop
 * reason and the usage, cache reads and writes included.
 */
import type { FinishReason, ReasoningPart, ToolCall } from "../../core/vocabulary/messages.js";
import type { TokenUsage } from "../../core/vocabulary/usage.js";
import { errorForStatus, ProviderProtocolError, StreamIncompleteError } from "../../models/errors.js";
import type { StreamAssembler, StreamContext } from "../../models/http-provider.js";
import type { ModelResponse } from "../../models/model.js";
import { checkedTokenUsage, reportedCount } from "../../models/usage-check.js";

interface ConverseUsage {
  inputTokens?: unknown;
  outputTokens?: unknown;
  cacheReadInputTokens?: unknown;
  cacheWriteInputTokens?: unknown;
}

/** glassloop's usage of a Converse `usage`: Bedrock counts cache reads and writes beside the input. */
export function usageOf(usage: ConverseUsage | undefined, provider: string): TokenUsage {
  const fresh = reportedCount(usage?.inputTokens, "inputTokens", provider);
  const read = reportedCount(usage?.cacheReadInputTokens, "cacheReadInputTokens", provider);
  const written = reportedCount(usage?.cacheWriteInputTokens, "cacheWriteInputTokens", provider);
  return checkedTokenUsage(
    {
      inputTokens: fresh + read + written,
      outputTokens: reportedCount(usage?.outputTokens, "outputTokens", provider),
      ...(read > 0 && { cachedInputTokens: read }),
      ...(written > 0 && { cacheWriteInputTokens: written }),
    },
    provider,
  );
}

/** glassloop's finish reason of a Converse `stopReason`. */
export function finishReasonOf(stop: unknown, hasCalls: boolean): FinishReason {
  if (hasCalls || stop === "tool_use") return "tool_calls";
  if (stop === "end_turn" || stop === "stop_sequence") return "stop";
  if (stop === "max_tokens" || stop === "model_context_window_exceeded") return "length";
  if (stop === "guardrail_intervened" || stop === "content_filtered") return "content_filter";
  return "other";
}

type Block = {
  text?: unknown;
  toolUse?: { toolUseId?: unknown; name?: unknown; input?: unknown };
  reasoningContent?: { reasoningText?: { text?: unknown; signature?: unknown }; redactedContent?: unknown };
};

/** Reads a `/converse` answer. */
export function parseConverse(body: unknown, provider: string): ModelResponse {
  const answer = body as {
    output?: { message?: { content?: unknown } };
    stopReason?: unknown;
    usage?: ConverseUsage;
  };
  const content = answer?.output?.message?.content;
  if (!Array.isArray(content))
    throw new ProviderProtocolError(`${provider} answer has no output.message.content`, { provider, body });
  let text = "";
  const toolCalls: ToolCall[] = [];
  const reasoning: ReasoningPart[] = [];
  for (const block of content as Block[]) {
    if (typeof block?.text === "string") text += block.text;
    else if (block?.toolUse) {
      const { toolUseId, name, input } = block.toolUse;
      toolCalls.push({
        id: typeof toolUseId === "string" ? toolUseId : "",
        name: typeof name === "string" ? name : "",
        arguments: JSON.stringify(input ?? {}),
      });
    } else if (block?.reasoningContent) {
      const { reasoningText, redactedContent } = block.reasoningContent;
      if (typeof redactedContent === "string")
        reasoning.push({ type: "reasoning", provider, text: "", signature: redactedContent, redacted: true });
      else if (reasoningText)
        reasoning.push({
          type: "reasoning",
          provider,
          text: typeof reasoningText.text === "string" ? reasoningText.text : "",
          ...(typeof reasoningText.signature === "string" && { signature: reasoningText.signature }),
        });
    }
  }
  return {
    text,
    toolCalls,
    usage: usageOf(answer.usage, provider),
    finishReason: finishReasonOf(answer.stopReason, toolCalls.length > 0),
    ...(reasoning.length > 0 && { reasoning }),
    raw: body,
  };
}

/** Bedrock's stream exceptions and the HTTP status each stands for (so retries treat them alike). */
const EXCEPTION_STATUS: Record<string, number> = {
  throttlingException: 429,
  serviceUnavailableException: 503,
  internalServerException: 500,
  modelStreamErrorException: 500,
  validationException: 400,
  modelTimeoutException: 408,
};

/** Assembles one `/converse-stream` answer from its events. */
export class ConverseStreamAssembler implements StreamAssembler {
  #text = "";
  #calls: { id: string; name: string; input: string }[] = [];
  #callAt = new Map<number, number>();
  #reasoning = new Map<number, { text: string; signature?: string; redacted?: string }>();
  #stop: unknown;
  #usage: ConverseUsage | undefined;
  #ended = false;
  #metadata = false;
  readonly #events: unknown[] = [];

  constructor(private readonly context: StreamContext) {}

  push(event: { event?: string; data: string }): boolean {
    const { provider } = this.context;
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(event.data) as Record<string, unknown>;
    } catch {
      throw new ProviderProtocolError(`${provider} sent an event that is not JSON`, {
        provider,
        excerpt: event.data.slice(0, 500),
      });
    }
    this.#events.push({ [event.event ?? "unknown"]: data });
    const type = event.event ?? "";
    if (type.startsWith("exception:")) {
      const name = type.slice("exception:".length);
      throw errorForStatus({
        provider,
        status: EXCEPTION_STATUS[name] ?? 500,
        excerpt: event.data.slice(0, 500),
        body: { message: `${name}: ${String(data.message ?? data.Message ?? "")}` },
      });
    }
    const index = typeof data.contentBlockIndex === "number" ? data.contentBlockIndex : 0;
    if (type === "contentBlockStart") {
      const toolUse = (data.start as { toolUse?: { toolUseId?: unknown; name?: unknown } } | undefined)
        ?.toolUse;
      if (toolUse) {
        this.#callAt.set(index, this.#calls.length);
        const call = {
          id: typeof toolUse.toolUseId === "string" ? toolUse.toolUseId : "",
          name: typeof toolUse.name === "string" ? toolUse.name : "",
          input: "",
        };
        this.#calls.push(call);
        this.context.deliver({
          type: "tool_call",
          index: this.#calls.length - 1,
          id: call.id,
          name: call.name,
          argumentsDelta: "",
        });
      }
    } else if (type === "contentBlockDelta") {
      const delta = (data.delta ?? {}) as {
        text?: unknown;
        toolUse?: { input?: unknown };
        reasoningContent?: { text?: unknown; signature?: unknown; redactedContent?: unknown };
      };
      if (typeof delta.text === "string" && delta.text !== "") {
        this.#text += delta.text;
        this.context.deliver({ type: "text", text: delta.text });
      } else if (delta.toolUse && typeof delta.toolUse.input === "string") {
        const at = this.#callAt.get(index);
        const call = at === undefined ? undefined : this.#calls[at];
        if (call && at !== undefined) {
          call.input += delta.toolUse.input;
          this.context.deliver({ type: "tool_call", index: at, argumentsDelta: delta.toolUse.input });
        }
      } else if (delta.reasoningContent) {
        const part = this.#reasoning.get(index) ?? { text: "" };
        const r = delta.reasoningContent;
        if (typeof r.text === "string") {
          part.text += r.text;
          if (r.text !== "") this.context.deliver({ type: "reasoning", text: r.text });
        }
        if (typeof r.signature === "string") part.signature = (part.signature ?? "") + r.signature;
        if (typeof r.redactedContent === "string") part.redacted = (part.redacted ?? "") + r.redactedContent;
        this.#reasoning.set(index, part);
      }
    } else if (type === "messageStop") {
      this.#stop = data.stopReason;
      this.#ended = true;
    } else if (type === "metadata") {
      this.#usage = data.usage as ConverseUsage | undefined;
      this.#metadata = true;
    }
    // The usage comes in `metadata`, after `messageStop`: the stream is complete with both.
    return this.#ended && this.#metadata;
  }

  finish(): ModelResponse {
    const { provider } = this.context;
    if (!this.#ended)
      throw new StreamIncompleteError(`${provider} stream ended before messageStop`, { provider });
    const toolCalls = this.#calls.map((c) => ({ id: c.id, name: c.name, arguments: c.input || "{}" }));
    const reasoning: ReasoningPart[] = [...this.#reasoning.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, part]) =>
        part.redacted !== undefined
          ? { type: "reasoning", provider, text: "", signature: part.redacted, redacted: true }
          : {
              type: "reasoning",
              provider,
              text: part.text,
              ...(part.signature && { signature: part.signature }),
            },
      );
    return {
      text: this.#text,
      toolCalls,
      usage: usageOf(this.#usage, provider),
      finishReason: finishReasonOf(this.#stop, toolCalls.length > 0),
      ...(reasoning.length > 0 && { reasoning }),
      raw: this.#events,
    };
  }
}
