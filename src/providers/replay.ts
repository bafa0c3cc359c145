import { ConfigError, GlassloopError } from "../core/errors.js";
import { once } from "../core/once.js";
import { InputTooLargeError, NotAFileError, readFileCapped } from "../core/read-caps.js";
import { describeValue, firstDifference } from "../core/request-diff.js";
import { parseTraceText } from "../core/trace-format.js";
import type { ErrorCode } from "../core/vocabulary/error-codes.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { FinishReason, ToolCall } from "../core/vocabulary/messages.js";
import type { TokenUsage } from "../core/vocabulary/usage.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../models/model.js";
import { registerProvider } from "./resolve.js";

/** One model call of a recording: what was asked and what came back (or how it failed). */
export interface RecordedExchange {
  runId: string;
  /** The step of the recorded run. */
  step: number;
  /** The recorded model's id, e.g. `openai:gpt-4o`. */
  model: string;
  /** The request body as it went over the wire then. */
  body: unknown;
  /** Streamed text pieces, in order, when the recorded run streamed. */
  deltas: string[];
  response?: {
    text: string;
    toolCalls: ToolCall[];
    usage: TokenUsage;
    finishReason: FinishReason;
    raw?: unknown;
  };
  /** The recorded call failed with this error instead of answering. */
  failure?: { code: string; message: string };
}

/** The agent asked something the recording did not: where, and what differs. */
export class ReplayDivergenceError extends GlassloopError {
  constructor(
    message: string,
    /** The model call (1-based) that diverged. */
    readonly call: number,
    /** The JSON path of the first difference in the canonical request, e.g. `messages[3].content`. */
    readonly path: string,
    readonly recorded: unknown,
    readonly actual: unknown,
  ) {
    super("replay_divergence", message);
  }
}

/** A recorded model call that failed, failing again in the replay the same way. */
export class ReplayedFailureError extends GlassloopError {
  constructor(code: string, message: string) {
    // The code comes from a recorded trace, so it is one this library wrote (an older version's
    // included); it is replayed as recorded, not checked against today's list.
    super(code as ErrorCode, `(replayed failure) ${message}`);
  }
}

/** Options of a replay. */
export interface ReplayOptions {
  /** Where the recording came from, for the model id and messages. */
  source?: string;
  /** Only this run of a trace that holds several. */
  runId?: string;
}

/**
 * A model that answers from a recorded trace of a real run, for offline demos and deterministic
 * reproductions. Every request is compared with the recorded one (provider-neutral: messages,
 * tools, tool choice and settings); the first difference stops the replay with a
 * `ReplayDivergenceError` naming the call and the path. Nothing is sent anywhere, and it costs nothing.
 */
export class ReplayModel implements Model {
  readonly id: string;
  readonly price: ModelPrice = { inputPerMTok: 0, outputPerMTok: 0 };
  /** The model the recording was made with. */
  readonly recordedModel: string;
  readonly exchanges: readonly RecordedExchange[];
  #next = 0;

  constructor(exchanges: readonly RecordedExchange[], options: ReplayOptions = {}) {
    const source = options.source ?? "recording";
    const chosen =
      options.runId === undefined ? exchanges : exchanges.filter((e) => e.runId === options.runId);
    if (chosen.length === 0) {
      const what = options.runId === undefined ? "no model calls" : `no model calls of run ${options.runId}`;
      throw new ConfigError(`Replay: ${source} holds ${what}`);
    }
    this.exchanges = chosen;
    this.recordedModel = (chosen[0] as RecordedExchange).model;
    this.id = `replay:${source}${options.runId === undefined ? "" : `#${options.runId}`}`;
  }

  /** A replay of the JSONL trace at `path` (`path#runId` picks one run of several). */
  static fromFile(spec: string): ReplayModel {
    const hash = spec.lastIndexOf("#");
    const path = hash > 0 ? spec.slice(0, hash) : spec;
    const runId = hash > 0 ? spec.slice(hash + 1) : undefined;
    let text: string;
    try {
      text = readFileCapped(path, "recording");
    } catch (error) {
      if (error instanceof InputTooLargeError || error instanceof NotAFileError)
        throw new ConfigError(`Replay: cannot read ${error.message}`);
      const code = (error as NodeJS.ErrnoException).code;
      throw new ConfigError(
        `Replay: cannot read ${path}${code === "ENOENT" ? " (no such file)" : `: ${code}`}`,
      );
    }
    return new ReplayModel(exchangesOf(parseTraceText(text).events), {
      source: path,
      ...(runId && { runId }),
    });
  }

  /** Model calls not replayed yet. */
  get remaining(): number {
    return this.exchanges.length - this.#next;
  }

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    const { signal: _signal, ...plain } = request;
    observer.onRequest({ body: { model: this.id, ...structuredClone(plain) }, attempt: 1 });
    const index = this.#next++;
    const call = index + 1;
    const recorded = this.exchanges[index];
    const { canonicalFromBody, canonicalFromRequest, wireFormatOf } = await CANONICAL();
    if (!recorded) {
      throw new ReplayDivergenceError(
        `Replay diverged at model call ${call}: the recording has only ${this.exchanges.length} model call(s), and the agent asked for another`,
        call,
        "(call)",
        undefined,
        canonicalFromRequest(plain),
      );
    }
    const expected = canonicalFromBody(recorded.body, recorded.model);
    // Compared in the recording's own terms (a Gemini recording as Gemini would read the request).
    const format = wireFormatOf(recordedBody(recorded.body), recorded.model);
    const actual = canonicalFromRequest(plain, format);
    const difference = firstDifference(expected, actual);
    if (difference) {
      const path = difference.path || "(request)";
      const [before, after] =
        difference.kind === "changed"
          ? [difference.before, difference.after]
          : difference.kind === "removed"
            ? [difference.value, undefined]
            : [undefined, difference.value];
      // An array that gained or lost an item is said so: "the agent sent nothing" would be false
      // when it sent the list without that item.
      const detail =
        difference.kind === "changed"
          ? `Recorded ${show(before)}, the agent sent ${show(after)}`
          : difference.kind === "removed"
            ? `The recording has ${show(before)} there; the agent's request does not`
            : `The agent sent ${show(after)} there; the recording does not have it`;
      const tools = path.startsWith("tools")
        ? ` (recorded tools: ${names(expected.tools)}; the agent's: ${names(actual.tools)})`
        : "";
      throw new ReplayDivergenceError(
        `Replay diverged at model call ${call} (step ${recorded.step} of the recorded run): ${path} differs. ` +
          detail +
          tools,
        call,
        path,
        before,
        after,
      );
    }
    if (recorded.failure) throw new ReplayedFailureError(recorded.failure.code, recorded.failure.message);
    const response = recorded.response as NonNullable<RecordedExchange["response"]>;
    if (request.stream) {
      const pieces = recorded.deltas.length > 0 ? recorded.deltas : response.text ? [response.text] : [];
      for (const text of pieces) observer.onDelta?.({ type: "text", text });
      for (const [i, c] of response.toolCalls.entries()) {
        observer.onDelta?.({
          type: "tool_call",
          index: i,
          id: c.id,
          name: c.name,
          argumentsDelta: c.arguments,
        });
      }
    }
    return {
      text: response.text,
      toolCalls: structuredClone(response.toolCalls),
      usage: { ...response.usage },
      finishReason: response.finishReason,
      modelName: recorded.model,
      ...(response.raw !== undefined && { raw: response.raw }),
    };
  }
}

function names(tools: readonly { name: string }[]): string {
  return tools.length === 0 ? "none" : tools.map((t) => t.name).join(", ");
}

function show(value: unknown): string {
  return value === undefined ? "nothing" : describeValue(value, 120);
}

/** The model calls of a trace's events, in order; a retried call keeps its last attempt. */
export function exchangesOf(events: readonly AgentEvent[]): RecordedExchange[] {
  const exchanges: RecordedExchange[] = [];
  const open = new Map<string, RecordedExchange>();
  for (const event of events) {
    if (event.type === "model_request") {
      open.set(event.runId, {
        runId: event.runId,
        step: event.step,
        model: event.model,
        body: event.body,
        deltas: [],
      });
    } else if (event.type === "text_delta") {
      open.get(event.runId)?.deltas.push(event.text);
    } else if (event.type === "model_response") {
      const pending = open.get(event.runId);
      if (!pending) continue;
      open.delete(event.runId);
      const { text, toolCalls, usage, finishReason, raw } = event;
      exchanges.push({
        ...pending,
        response: { text, toolCalls, usage, finishReason, ...(raw !== undefined && { raw }) },
      });
    } else if (event.type === "error") {
      const pending = open.get(event.runId);
      if (!pending) continue;
      open.delete(event.runId);
      exchanges.push({ ...pending, failure: { code: event.code, message: event.message } });
    }
  }
  return exchanges;
}

registerProvider("replay", (spec) => ReplayModel.fromFile(spec));

// The readers of every provider's bodies, imported on the first replayed call.
const CANONICAL = once(() => import("./replay/canonical.js"));

/** A recorded body as an object (anything else reads as an empty one). */
function recordedBody(body: unknown): Record<string, unknown> {
  return body !== null && typeof body === "object" && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}
