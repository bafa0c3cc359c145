import { inspect } from "node:util";
import { redact } from "../core/redact.js";
import type { PgClient } from "../store/postgres/pg-driver.js";
import { quoteIdent } from "../store/postgres/pg-migrations.js";
import { openPgPool, type PgTarget, type PostgresOptions, pgTransaction } from "../store/postgres/pg-pool.js";
import type { McpCredentialStore, McpCredentials } from "./oauth.js";

/** How the Postgres credential store connects: the Postgres store's options (`url`, `schema`, ...). */
export type PostgresMcpCredentialOptions = PostgresOptions;

/**
 * OAuth credentials of MCP servers (registration and tokens) kept in Postgres, in the table
 * `mcp_credentials` beside the Postgres store's (same schema, default `glassloop`), keyed by the
 * server's URL: every process on the database reuses a token one of them obtained, and a restart
 * does not ask the person to consent again. The table holds usable tokens: grant it as narrowly
 * as the keys in your environment. Nothing this object prints or throws carries them: `toJSON`
 * names only the server, and an error is redacted of the tokens it was handling.
 */
export class PostgresMcpCredentialStore implements McpCredentialStore {
  /** The server and database, without the password. */
  readonly location: string;
  readonly #target: PgTarget;
  readonly #table: string;
  #closed: Promise<void> | undefined;

  private constructor(target: PgTarget) {
    this.location = target.location;
    this.#target = target;
    this.#table = `${quoteIdent(target.schema)}.mcp_credentials`;
  }

  /** Connects and creates the table when missing. */
  static async connect(options: PostgresMcpCredentialOptions = {}): Promise<PostgresMcpCredentialStore> {
    const target = openPgPool({ maxConnections: 2, ...options }, "PostgresMcpCredentialStore");
    const store = new PostgresMcpCredentialStore(target);
    try {
      await pgTransaction(target, (client) => store.#createTable(client));
    } catch (error) {
      await target.pool.end().catch(() => {});
      throw error;
    }
    return store;
  }

  async load(server: string): Promise<McpCredentials | undefined> {
    const rows = await pgTransaction(
      this.#target,
      async (client) =>
        (
          await client.query<{ credentials: McpCredentials }>(
            `SELECT credentials FROM ${this.#table} WHERE server = $1`,
            [server],
          )
        ).rows,
      "single",
    );
    return rows[0]?.credentials;
  }

  async save(server: string, credentials: McpCredentials): Promise<void> {
    const text = JSON.stringify(credentials);
    try {
      await pgTransaction(
        this.#target,
        (client) =>
          client.query(
            `INSERT INTO ${this.#table} (server, credentials, updated_at) VALUES ($1, $2::json, $3)
             ON CONFLICT (server) DO UPDATE SET credentials = excluded.credentials, updated_at = excluded.updated_at`,
            [server, text, Date.now()],
          ),
        "single",
      );
    } catch (error) {
      // A database error may quote the row it refused: never with the tokens in it.
      throw redactedError(error, secretsOf(credentials));
    }
  }

  /** Forgets a server's credentials (the next connection asks the person again). */
  async delete(server: string): Promise<void> {
    await pgTransaction(
      this.#target,
      (client) => client.query(`DELETE FROM ${this.#table} WHERE server = $1`, [server]),
      "single",
    );
  }

  /** Closes the connections (again: nothing more). */
  close(): Promise<void> {
    this.#closed ??= this.#target.pool.end();
    return this.#closed;
  }

  /** Never the tokens (nor the database password), whatever prints this object. */
  toJSON(): { location: string } {
    return { location: this.location };
  }

  async #createTable(client: PgClient): Promise<void> {
    // Two processes starting at once would race on CREATE ... IF NOT EXISTS without it.
    await client.query("SELECT pg_advisory_xact_lock(hashtextextended('glassloop mcp credentials', 7))");
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.#target.schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${this.#table} (
      server text PRIMARY KEY,
      credentials json NOT NULL,
      updated_at bigint NOT NULL)`);
  }
}

/** The secrets a credentials record holds, for redaction. */
function secretsOf(credentials: McpCredentials): string[] {
  const { tokens, client } = credentials;
  return [
    tokens?.access_token,
    tokens?.refresh_token,
    tokens?.id_token,
    client && "client_secret" in client ? client.client_secret : undefined,
  ].filter((s): s is string => typeof s === "string" && s.length > 0);
}

/**
 * `error`, its class kept, with every secret taken out of its message and stack, and its cause
 * dropped when that holds one (a driver's error keeps the refused row in its detail).
 */
function redactedError(error: unknown, secrets: readonly string[]): Error {
  if (!(error instanceof Error)) return new Error(redact(String(error), secrets));
  error.message = redact(error.message, secrets);
  if (error.stack) error.stack = redact(error.stack, secrets);
  const cause = inspect(error.cause, { depth: 6 });
  if (secrets.some((secret) => cause.includes(secret))) delete error.cause;
  return error;
}
