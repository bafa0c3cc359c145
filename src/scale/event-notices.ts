import type { PgClient, PgPool } from "../store/postgres/pg-driver.js";
import { EVENTS_CHANNEL } from "./event-writer.js";

/** A pooled connection as `pg` hands it out, with the events LISTEN needs. */
interface ListeningClient extends PgClient {
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: "error" | "end", listener: (error?: Error) => void): unknown;
  removeAllListeners(event?: string): unknown;
}

/** How long to wait before listening again after the connection was lost. */
const RECONNECT_MS = 1_000;

/**
 * Listens for the workers' event writes (NOTIFY on `glassloop_scale_events`, see event-writer.ts)
 * on one connection held out of `pool`, and calls `listener` with the ids of the runs written (an
 * empty list: any run). A lost connection is replaced after a second; the listener is then called
 * with an empty list, since notices in between were missed. Returns the way to stop.
 */
export async function listenForEvents(
  pool: PgPool,
  listener: (runIds: string[]) => void,
): Promise<() => Promise<void>> {
  let client: ListeningClient | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  const connect = async (): Promise<void> => {
    const next = (await pool.connect()) as ListeningClient;
    next.on("notification", (message) => {
      if (message.channel !== EVENTS_CHANNEL) return;
      listener(message.payload ? message.payload.split(",") : []);
    });
    const lost = () => {
      if (client !== next) return;
      client = undefined;
      next.removeAllListeners("notification");
      next.release(true);
      listener([]);
      later();
    };
    next.on("error", lost);
    next.on("end", lost);
    try {
      await next.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (error) {
      next.removeAllListeners("notification");
      next.release(true);
      throw error;
    }
    if (stopped) {
      next.removeAllListeners("notification");
      next.release(true);
      return;
    }
    client = next;
  };
  const later = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(later);
    }, RECONNECT_MS);
    retry.unref();
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const held = client;
    client = undefined;
    if (!held) return;
    held.removeAllListeners("notification");
    // Destroyed, not returned: a pooled connection must not carry a LISTEN into another caller's hands.
    held.release(true);
  };
}
