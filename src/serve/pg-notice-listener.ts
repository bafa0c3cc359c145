import type { PgClient } from "../store/postgres/pg-driver.js";
import type { PgTarget } from "../store/postgres/pg-pool.js";

/** A pooled connection as `pg` hands it out, with the events LISTEN needs. */
interface ListeningClient extends PgClient {
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: "error" | "end", listener: (error?: Error) => void): unknown;
  removeAllListeners(event?: string): unknown;
}

/** How long to wait before listening again after the connection was lost. */
const RECONNECT_MS = 1_000;

/**
 * One connection held out of the pool that LISTENs on a channel and hands every payload to the
 * listeners added. Opened with the first listener, closed with the last; a lost connection is
 * replaced after a second (notices in between are missed: readers also poll, more slowly).
 */
export class NoticeListener {
  readonly #target: PgTarget;
  readonly #channel: string;
  readonly #listeners = new Set<(payload: string) => void>();
  #client: ListeningClient | undefined;
  #connecting: Promise<void> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(target: PgTarget, channel: string) {
    this.#target = target;
    this.#channel = channel;
  }

  /** Adds a listener (listening from now on); returns the way to remove it. */
  async add(listener: (payload: string) => void): Promise<() => Promise<void>> {
    this.#listeners.add(listener);
    await this.#connect().catch(() => this.#retryLater());
    return async () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0) await this.#drop();
    };
  }

  /** Stops listening for good. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    await this.#drop();
  }

  #connect(): Promise<void> {
    if (this.#client || this.#closed || this.#listeners.size === 0) return Promise.resolve();
    this.#connecting ??= (async () => {
      const client = (await this.#target.pool.connect()) as ListeningClient;
      client.on("notification", (message) => {
        if (message.channel !== this.#channel || message.payload === undefined) return;
        for (const listener of [...this.#listeners]) listener(message.payload);
      });
      client.on("error", () => this.#lost(client));
      client.on("end", () => this.#lost(client));
      try {
        await client.query(`LISTEN ${this.#channel}`);
      } catch (error) {
        client.removeAllListeners("notification");
        client.release(error as Error);
        throw error;
      }
      if (this.#closed || this.#listeners.size === 0) {
        client.removeAllListeners("notification");
        client.release(true);
        return;
      }
      this.#client = client;
    })().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  #lost(client: ListeningClient): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.removeAllListeners("notification");
    client.release(true);
    this.#retryLater();
  }

  #retryLater(): void {
    if (this.#closed || this.#retry || this.#listeners.size === 0) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#connect().catch(() => this.#retryLater());
    }, RECONNECT_MS);
    this.#retry.unref();
  }

  async #drop(): Promise<void> {
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = undefined;
    await this.#connecting?.catch(() => {});
    const client = this.#client;
    this.#client = undefined;
    if (!client) return;
    client.removeAllListeners("notification");
    // Destroyed, not returned: a pooled connection must not carry a LISTEN into another caller's hands.
    client.release(true);
  }
}
