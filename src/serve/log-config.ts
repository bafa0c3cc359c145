import type { PostgresOptions } from "../store/postgres/pg-pool.js";
import { PostgresServeLog } from "./postgres-serve-log.js";
import type { RunHub } from "./run-hub.js";
import type { ServeLog } from "./serve-log.js";
import type { ServeRuns } from "./serve-runs.js";
import { DEFAULT_SERVE_DB, SqliteServeLog } from "./sqlite-serve-log.js";

/** Whether `location` names a Postgres server rather than a SQLite file. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * The serve log `createHandler` was given: a ServeLog as is, a `postgres://` URL as a
 * PostgresServeLog (tables in `schema`, default `glassloop`), anything else as a SQLite file
 * (default `.glassloop/serve.db`). `owned`: the handler opened it, so it closes it.
 */
export function openServeLog(
  log: ServeLog | string | undefined,
  postgres: Omit<PostgresOptions, "url"> = {},
): { log: ServeLog; owned: boolean } {
  if (typeof log === "object") return { log, owned: false };
  const location = log ?? DEFAULT_SERVE_DB;
  if (isPostgresUrl(location))
    return { log: new PostgresServeLog({ ...postgres, url: location }), owned: true };
  return { log: new SqliteServeLog(location), owned: true };
}

/**
 * Feeds the log's notices (other processes' appends and cancel requests) to this process's
 * readers and runs; resolves with the way to stop. A log without notices is polled instead.
 */
export async function listenToLog(
  log: ServeLog,
  hub: RunHub,
  runs: Pick<ServeRuns, "cancelled" | "released">,
): Promise<() => Promise<void>> {
  if (!log.subscribe) return async () => {};
  const stop = await log.subscribe((notice) => {
    if (notice.kind === "items") hub.noticed(notice.runId);
    else if (notice.kind === "released") runs.released();
    else runs.cancelled(notice.runId);
  });
  hub.notices = true;
  return async () => {
    hub.notices = false;
    await stop();
  };
}
