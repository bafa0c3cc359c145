/**
 * A client of one remote A2A agent: reads its card once, then sends messages (streamed when the
 * card says it streams) and follows each task until it ends or asks for input, within a deadline
 * and byte, event and artifact caps. What it returns is the peer's claim, as data.
 */
import { randomUUID } from "node:crypto";
import { READ_CAPS } from "../../core/read-caps.js";
import { redact } from "../../core/redact.js";
import { sleep } from "../../core/sleep.js";
import type { PeerEvent } from "../schemas.js";
import { partV03 } from "../v03.js";
import type { Part } from "../wire.js";
import { cardUrlOf, type PeerCard, readCard } from "./card-reader.js";
import { A2APeerError } from "./peer-error.js";
import { type PeerTask, PeerTaskFold } from "./peer-task.js";
import { call, eventOf, methodName, type PeerEndpoint, stream } from "./rpc-client.js";

/** Options of an A2A client; every bound has a default. */
export interface A2AClientOptions {
  /** A bearer token for the peer (sent as `Authorization`, never shown). */
  token?: string;
  /** More headers for every request (their values are treated as secrets too). */
  headers?: Readonly<Record<string, string>>;
  /** Origins besides the card's own that the card's endpoint may be on (default none). */
  allowedOrigins?: readonly string[];
  /** Largest card or JSON answer (default 1 MiB). */
  maxResponseBytes?: number;
  /** Largest stream, all events together (default 8 MiB). */
  maxStreamBytes?: number;
  /** Most events one stream may send (default 10,000). */
  maxEvents?: number;
  /** Most characters of artifacts and messages kept from one task (default 200,000). */
  maxResultChars?: number;
  /** Use streaming when the card offers it (default true). */
  stream?: boolean;
  /** The fetch to use (default the global one). */
  fetch?: typeof fetch;
}

export type { PeerTask } from "./peer-task.js";

/** What to send: text, or data, on a new or an existing task. */
export interface PeerSend {
  text?: string;
  data?: unknown;
  contextId?: string;
  taskId?: string;
  signal: AbortSignal;
}

/** Connects to the agent whose base URL (or card URL) is `url`. */
export class A2AClient {
  readonly card: PeerCard;
  readonly #endpoint: PeerEndpoint;
  readonly #maxChars: number;
  readonly #stream: boolean;

  private constructor(card: PeerCard, endpoint: PeerEndpoint, options: A2AClientOptions) {
    this.card = card;
    this.#endpoint = endpoint;
    this.#maxChars = options.maxResultChars ?? 200_000;
    this.#stream = options.stream !== false && card.streaming;
  }

  /** Reads the card at `url` and returns a client of the endpoint it names. */
  static async connect(
    url: string,
    options: A2AClientOptions = {},
    signal?: AbortSignal,
  ): Promise<A2AClient> {
    const headers = new Headers(options.headers);
    if (options.token) headers.set("authorization", `Bearer ${options.token}`);
    const secrets = [...Object.values(options.headers ?? {}), ...(options.token ? [options.token] : [])];
    const scrub = (text: string) => redact(text, secrets);
    const fetchImpl = options.fetch ?? fetch;
    const bounds = {
      maxResponseBytes: options.maxResponseBytes ?? READ_CAPS.a2aMessage,
      maxStreamBytes: options.maxStreamBytes ?? READ_CAPS.a2aStream,
      maxEvents: options.maxEvents ?? 10_000,
    };
    cardUrlOf(url);
    const card = await guard(
      scrub,
      () =>
        readCard(url, {
          fetch: fetchImpl,
          headers,
          maxBytes: bounds.maxResponseBytes,
          allowedOrigins: options.allowedOrigins ?? [],
          signal: signal ?? new AbortController().signal,
        }),
      signal,
    );
    return new A2AClient(
      card,
      { url: card.endpoint, version: card.version, fetch: fetchImpl, headers, bounds, scrub },
      options,
    );
  }

  /** Sends a message and follows the task until it ends or waits for input. */
  async send(input: PeerSend): Promise<PeerTask> {
    const e = this.#endpoint;
    const parts: Part[] = [];
    if (input.text !== undefined) parts.push({ text: input.text });
    if (input.data !== undefined) parts.push({ data: input.data });
    const message = {
      messageId: randomUUID(),
      role: "ROLE_USER" as const,
      parts,
      ...(input.contextId && { contextId: input.contextId }),
      ...(input.taskId && { taskId: input.taskId }),
    };
    const params =
      e.version === "1.0"
        ? { message, configuration: { acceptedOutputModes: ["text/plain", "application/json"] } }
        : {
            message: { ...message, kind: "message", role: "user", parts: parts.map(partV03) },
            configuration: { blocking: true, acceptedOutputModes: ["text/plain", "application/json"] },
          };
    const state = new PeerTaskFold(this.#maxChars);
    await guard(
      e.scrub,
      async () => {
        if (this.#stream) {
          await stream(e, methodName(e, "stream"), params, input.signal, (event) => state.apply(event, true));
        } else {
          const method = methodName(e, "send");
          state.apply(eventOf(method, await call(e, method, params, input.signal), false));
        }
        // A peer that answered before the task settled (or closed its stream early) is polled.
        for (let wait = 250; state.task && !state.settled(); wait = Math.min(wait * 2, 2000)) {
          await sleep(wait, input.signal);
          state.apply(await this.#get(state.task.taskId, input.signal));
        }
      },
      input.signal,
    );
    const task = state.task;
    if (!task) throw new A2APeerError("protocol", "the A2A agent answered without a task or message");
    return task;
  }

  /** Cancels a task (best effort: a peer that refuses is not an error here). */
  async cancel(taskId: string, signal: AbortSignal): Promise<void> {
    const method = methodName(this.#endpoint, "cancel");
    await call(this.#endpoint, method, { id: taskId }, signal).catch(() => {});
  }

  async #get(taskId: string, signal: AbortSignal): Promise<PeerEvent> {
    const method = methodName(this.#endpoint, "get");
    return eventOf(method, await call(this.#endpoint, method, { id: taskId }, signal), true);
  }
}

/** Runs `fn`, turning an abort into a typed timeout and scrubbing credentials from anything else. */
async function guard<T>(
  scrub: (text: string) => string,
  fn: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof A2APeerError) throw error;
    const name = (error as { name?: string })?.name;
    if (signal?.aborted || name === "AbortError" || name === "TimeoutError")
      throw new A2APeerError("timeout", "the A2A agent did not finish before the deadline", { cause: error });
    const message = error instanceof Error ? error.message : String(error);
    throw new A2APeerError("protocol", scrub(`the A2A agent could not be reached: ${message}`));
  }
}
