import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { QuestionAsked } from "../core/questions.js";
import type { PersonQuestion } from "../core/vocabulary/questions.js";
import type { McpElicitationAnswer, McpElicitationHandler } from "./elicitation.js";
import type { McpSamplingOptions, SamplingCall } from "./sampling.js";
import { type Client, schemas } from "./sdk.js";

/** A log message a server sent (`notifications/message`). */
export interface McpLogEntry {
  server: string;
  level: "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
  logger?: string;
  data: unknown;
}

/** What the client offers a server beyond tools. Each is off unless given. */
export interface McpClientFeatures {
  /**
   * Answers a server's questions (elicitation): a function that asks in this process, or
   * `"pause"`: the question pauses the run (stored, like an approval) until
   * `agent.resume(runId, { answers })` brings the person's answer, given later and in any process;
   * the call then runs again and the server's same question is answered from it. Without it the
   * client does not offer elicitation and a server cannot ask. Bounded by `maxElicitations`.
   */
  onElicitation?: McpElicitationHandler | "pause";
  /**
   * Most questions a server may ask per tool call (default 5); past that the client answers
   * `cancel` itself and warns, so a server that asks forever cannot hold a run.
   */
  maxElicitations?: number;
  /** Folders the server may work in (`roots/list`), as file URIs or paths. */
  roots?: readonly { uri: string; name?: string }[];
  /**
   * Gives the model two tools, `<prefix>_list_resources` and `<prefix>_read_resource`, over the
   * server's resources (default false: resources are read by your code, `client.resources`).
   */
  resourceTools?: boolean;
  /** Receives the server's log messages (default: dropped). */
  onLog?: (entry: McpLogEntry) => void;
  /**
   * Lets the server ask a model for completions during a tool call (sampling). Without it the
   * client does not offer sampling and a server cannot ask.
   */
  sampling?: McpSamplingOptions;
}

/** The capabilities the features above announce in `initialize`. */
export function capabilitiesFor(features: McpClientFeatures): ClientCapabilities {
  return {
    ...(features.onElicitation && { elicitation: { form: { applyDefaults: true } } }),
    ...(features.roots && { roots: { listChanged: false } }),
    ...(features.sampling && { sampling: {} }),
  };
}

/** Counts questions per tool call; the client resets it when a call starts. */
export class ElicitationBudget {
  #asked = 0;
  constructor(readonly most: number) {}
  reset(): void {
    this.#asked = 0;
  }
  /** True while the server may still ask. */
  take(): boolean {
    this.#asked += 1;
    return this.#asked <= this.most;
  }
}

/** A tool call in flight on one server: what sampling charges, and where a pausing question lands. */
export interface CallInFlight extends SamplingCall {
  /** The question that pauses the run (the first one the record did not answer). */
  asked?: PersonQuestion;
  /** Stops the server's tool call once it asked that question. */
  readonly pause: AbortController;
}

/** Installs the handlers for elicitation, roots and logging on an SDK client. */
export function installFeatures(
  client: Client,
  server: string,
  features: McpClientFeatures,
  budget: ElicitationBudget,
  warn: (message: string) => void,
  callInFlight: () => CallInFlight | undefined,
): void {
  const { onElicitation, roots, onLog } = features;
  if (onElicitation) {
    client.setRequestHandler(schemas.ElicitRequestSchema, async (request, extra) => {
      const params = request.params;
      // Only form mode is offered; a URL-mode request is refused by the SDK before it gets here.
      if (!("requestedSchema" in params)) return { action: "decline" };
      if (!budget.take()) {
        warn(`asked more than ${budget.most} questions in one tool call; answered "cancel"`);
        return { action: "cancel" };
      }
      const schema = params.requestedSchema as Record<string, unknown>;
      if (onElicitation === "pause")
        return pauseFor(callInFlight(), { source: server, message: params.message, schema }, warn);
      return onElicitation({ server, message: params.message, schema, signal: extra.signal });
    });
  }
  if (roots) {
    const list = roots.map((r) => ({
      uri: r.uri.startsWith("file://") ? r.uri : `file://${r.uri}`,
      ...(r.name && { name: r.name }),
    }));
    client.setRequestHandler(schemas.ListRootsRequestSchema, async () => ({ roots: list }));
  }
  if (onLog) {
    client.setNotificationHandler(schemas.LoggingMessageNotificationSchema, (notification) => {
      const { level, logger, data } = notification.params;
      onLog({ server, level, data, ...(logger && { logger }) });
    });
  }
}

/**
 * A question in pause mode: the recorded answer when the run was resumed with one for exactly this
 * question (sameQuestion: server, text, form), else the call stops and the run pauses with the
 * question (the server hears "cancel"; the call runs again on resume).
 */
function pauseFor(
  call: CallInFlight | undefined,
  question: PersonQuestion,
  warn: (message: string) => void,
): McpElicitationAnswer {
  if (!call) {
    warn('asked a question outside any tool call, so no run could wait for it; answered "cancel"');
    return { action: "cancel" };
  }
  const recorded = call.run.answered?.(question);
  if (recorded) return recorded;
  call.asked ??= question;
  call.pause.abort(new QuestionAsked(call.asked));
  return { action: "cancel" };
}
