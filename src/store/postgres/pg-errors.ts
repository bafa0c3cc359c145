import { GlassloopError } from "../../core/errors.js";
import { DatabaseLockedError, DatabaseOpenError, StoreError } from "../errors.js";

/** What each failure to reach a server means, for the one line the user reads. */
const CONNECT_HINTS: Record<string, string> = {
  ECONNREFUSED: "nothing is listening there (is Postgres running, on that host and port?)",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name does not resolve (DNS failed)",
  ETIMEDOUT: "the connection timed out",
  ENOENT: "no Unix socket there (is Postgres running, with that socket directory?)",
  "28P01": "the password was refused",
  "28000": "the server refused this user or host (pg_hba.conf)",
  "3D000": "the database does not exist (create it with createdb)",
  "42501": "this user lacks a privilege the store needs (CREATE on the database, or on the schema)",
  "57P03": "the server is starting up or shutting down",
};

/** Turns a `pg` error into a StoreError that names the server (never its password). */
export function translatePgError(error: unknown, location: string): Error {
  if (error instanceof GlassloopError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const detail = error instanceof Error ? error.message : String(error);
  if (typeof code === "string") {
    const hint = CONNECT_HINTS[code];
    if (hint)
      return new DatabaseOpenError(location, new Error(`${hint} (${code}: ${detail})`, { cause: error }));
    // lock_not_available: a row lock held past lock_timeout.
    if (code === "55P03") return new DatabaseLockedError(location, error);
    if (/^[0-9A-Z]{5}$/.test(code)) {
      return new StoreError("db_error", location, `The database ${location} failed: ${detail} (${code})`, {
        cause: error,
      });
    }
  }
  if (/timeout exceeded when trying to connect|Connection terminated/i.test(detail))
    return new DatabaseOpenError(location, new Error(`could not connect: ${detail}`, { cause: error }));
  return error instanceof Error ? error : new Error(detail);
}

/**
 * The URL without its password or query, for messages and `location`: `postgres://user@host:port/db`;
 * undefined when it is not a `postgres://` or `postgresql://` URL.
 */
export function describeUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") return undefined;
    parsed.password = "";
    parsed.search = "";
    return parsed.toString();
  } catch {
    return undefined;
  }
}
