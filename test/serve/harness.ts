/**
 * A served agent for the serve tests: a handler on in-memory SQLite (store and log), agents whose
 * models are test doubles, and a `useChat`-equivalent client built from the real `ai` pieces
 * (`AbstractChat` + `DefaultChatTransport`, which is what `@ai-sdk/react`'s `useChat` wraps).
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AbstractChat,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";
import { z } from "zod";
import { type Store, tool } from "../../src/index.js";
import { createHandler, type ServeHandler, type ServeLog, type ServeOptions } from "../../src/serve/index.js";
import { PostgresServeLog } from "../../src/serve/postgres-serve-log.js";
import { SqliteServeLog } from "../../src/serve/sqlite-serve-log.js";
import { PostgresStore } from "../../src/store/postgres/postgres-store.js";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { FunctionModel, type ScriptStep } from "../../src/testing.js";
import { freshSchema, POSTGRES_SKIP, postgresUrl } from "../helpers/postgres.js";

/** Two callers with their own tokens. */
export const ALICE = "alice-token-0123456789";
export const BOB = "bob-token-0123456789abc";

/** A tool that needs approval, and one that does not. */
export const refund = tool({
  name: "refund",
  description: "Refunds an order.",
  input: z.object({ order: z.string(), amount: z.number() }),
  needsApproval: true,
  run: ({ order, amount }) => `refunded ${amount} on ${order}`,
});
export const lookup = tool({
  name: "lookup",
  description: "Looks an order up.",
  input: z.object({ order: z.string() }),
  run: ({ order }) => ({ order, status: "shipped" }),
});

/** A model that answers by a function of the transcript (fresh per run, as factories are). */
export function modelOf(respond: (messages: readonly { role: string; content?: unknown }[]) => ScriptStep) {
  return () =>
    new FunctionModel((request) => respond(request.messages as { role: string; content?: unknown }[]));
}

/** The last user text of a request. */
export function lastUser(messages: readonly { role: string; content?: unknown }[]): string {
  const m = [...messages].reverse().find((x) => x.role === "user");
  return typeof m?.content === "string" ? m.content : "";
}

export interface Served {
  handler: ServeHandler;
  store: Store;
  log: ServeLog;
  /** A fetch bound to the handler (no network). */
  fetch: typeof fetch;
  close(): Promise<void>;
}

/** A handler over fresh in-memory databases. */
export function serve(options: Partial<ServeOptions> & Pick<ServeOptions, "agents">): Served {
  const store = new SqliteStore({ path: ":memory:" });
  const log = new SqliteServeLog(":memory:");
  return served(options, store, log, () => {
    log.close();
    store.close();
  });
}

/** A place the handler keeps its runs and log: SQLite files, or a fresh schema on the test Postgres. */
export interface ServeBackend {
  name: string;
  /** Why it is skipped here, if it is. */
  skip: string | undefined;
  /** A fresh database; each `open()` on the returned place is another process's connection to it. */
  fresh(): Promise<{ open(): Promise<{ store: Store; log: ServeLog; close(): Promise<void> }> }>;
}

/** SQLite files (WAL: several handlers may share them) and Postgres, the two logs a server can use. */
export const SERVE_BACKENDS: readonly ServeBackend[] = [
  {
    name: "SqliteServeLog",
    skip: undefined,
    async fresh() {
      const dir = mkdtempSync(join(tmpdir(), "glassloop-serve-log-"));
      return {
        async open() {
          const store = new SqliteStore({ path: join(dir, "store.db") });
          const log = new SqliteServeLog(join(dir, "serve.db"));
          return {
            store,
            log,
            async close() {
              log.close();
              store.close();
              rmSync(dir, { recursive: true, force: true });
            },
          };
        },
      };
    },
  },
  {
    name: "PostgresServeLog",
    skip: POSTGRES_SKIP,
    async fresh() {
      const url = await postgresUrl();
      const schema = freshSchema();
      return {
        async open() {
          const [store, log] = await Promise.all([
            PostgresStore.connect({ url, schema }),
            PostgresServeLog.connect({ url, schema }),
          ]);
          return {
            store,
            log,
            async close() {
              await Promise.all([log.close(), store.close()]);
            },
          };
        },
      };
    },
  },
];

/** A handler on a fresh database of `backend`. */
export async function serveOn(
  backend: ServeBackend,
  options: Partial<ServeOptions> & Pick<ServeOptions, "agents">,
): Promise<Served> {
  const { store, log, close } = await (await backend.fresh()).open();
  return served(options, store, log, close);
}

/** A handler on `store` and `log`, with a fetch bound to it; `done` closes what the handler does not own. */
export function served(
  options: Partial<ServeOptions> & Pick<ServeOptions, "agents">,
  store: Store,
  log: ServeLog,
  done: () => void | Promise<void>,
): Served {
  const handler = createHandler({
    auth: { tokens: { alice: ALICE, bob: BOB } },
    store,
    log,
    page: false,
    ...options,
  });
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) =>
    handler.fetch(
      new Request(
        typeof input === "string" && input.startsWith("/") ? `http://serve.test${input}` : input,
        init,
      ),
    )) as typeof fetch;
  return {
    handler,
    store,
    log,
    fetch: fetchImpl,
    async close() {
      await handler.close();
      await done();
    },
  };
}

class State implements ChatState<UIMessage> {
  status: ChatStatus = "ready";
  error: Error | undefined = undefined;
  messages: UIMessage[];
  constructor(messages: UIMessage[] = []) {
    this.messages = messages;
  }
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** `useChat` without React: the same AbstractChat and transport, for one caller and one chat id. */
export class TestChat extends AbstractChat<UIMessage> {
  readonly errors: Error[] = [];
  constructor(
    served: { fetch: typeof fetch },
    options: { id: string; token: string; agent?: string; messages?: UIMessage[]; base?: string },
  ) {
    const errors: Error[] = [];
    super({
      id: options.id,
      state: new State(options.messages),
      transport: new DefaultChatTransport({
        api: `${options.base ?? "http://serve.test"}/api/chat`,
        headers: { authorization: `Bearer ${options.token}` },
        ...(options.agent !== undefined && { body: { agent: options.agent } }),
        fetch: served.fetch,
      }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      onError: (error) => errors.push(error),
    });
    this.errors = errors;
  }

  /** The text of the last assistant message. */
  get lastText(): string {
    const last = this.messages.at(-1);
    return (last?.parts ?? [])
      .filter((p): p is { type: "text"; text: string } => p.type === "text")
      .map((p) => p.text)
      .join("");
  }
}

/** Waits until `check` passes (polling), for states reached asynchronously. */
export async function until(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Parses a raw SSE body into its `data:` payloads and ids (for byte-level checks). */
export function parseSse(text: string): { id?: string; data: string }[] {
  const out: { id?: string; data: string }[] = [];
  for (const block of text.split("\n\n")) {
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("id: ")) id = line.slice(4);
      else if (line.startsWith("data: ")) data.push(line.slice(6));
    }
    if (data.length > 0) out.push({ ...(id !== undefined && { id }), data: data.join("\n") });
  }
  return out;
}
