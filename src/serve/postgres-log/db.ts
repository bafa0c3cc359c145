import type { PgClient, PgResult } from "../../store/postgres/pg-driver.js";
import type { ServeNotice } from "../serve-log.js";

/**
 * What the Postgres serve log's statements need of the log: prepared statements, transactions and
 * the NOTIFY payload. The log (postgres-serve-log.ts) owns the pool and hands this to the
 * functions of each concept (chats, runs, leases, items, approvals), which stay plain functions.
 */
export interface PgServeDb {
  /** One statement, prepared once per connection under `name`. */
  query<R>(name: string, text: string, values: unknown[]): Promise<PgResult<R>>;
  /** Several statements in one transaction (`read`, `write`) or one on its own (`single`). */
  tx<T>(work: (client: PgClient) => Promise<T>, kind?: "read" | "write" | "single"): Promise<T>;
  /** The payload announcing `notice`; it names the log's schema, so logs sharing a server tell theirs apart. */
  notice(notice: ServeNotice): string;
}
