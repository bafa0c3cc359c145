import type Database from "better-sqlite3";
import { defaultDatabasePath } from "../store/sqlite/default-path.js";
import { openDatabase, parseStored, type SqliteOptions } from "../store/sqlite/sqlite-open.js";
import type { McpCredentialStore, McpCredentials } from "./oauth.js";

/**
 * OAuth credentials of MCP servers (registration and tokens) kept in glassloop's SQLite database
 * (by default the store's own file: `GLASSLOOP_DB`, else `.glassloop/glassloop.db`), so a token
 * survives a restart and the person is not asked to consent again. Keyed by the server's URL.
 * The file holds usable tokens: keep it as private as the keys in your environment. Nothing
 * glassloop prints or records carries them (errors are redacted, see `McpAuthError`).
 */
export class SqliteMcpCredentialStore implements McpCredentialStore {
  readonly location: string;
  readonly #db: Database.Database;

  constructor(options: SqliteOptions = {}) {
    this.location = defaultDatabasePath(options.path);
    this.#db = openDatabase(this.location, options);
    this.#db.exec(
      "CREATE TABLE IF NOT EXISTS mcp_credentials (server TEXT PRIMARY KEY, credentials TEXT NOT NULL, updated_at INTEGER NOT NULL)",
    );
  }

  load(server: string): McpCredentials | undefined {
    const row = this.#db.prepare("SELECT credentials FROM mcp_credentials WHERE server = ?").get(server) as
      | { credentials: string }
      | undefined;
    return row ? parseStored<McpCredentials>(row.credentials, this.location, "MCP credentials") : undefined;
  }

  save(server: string, credentials: McpCredentials): void {
    this.#db
      .prepare(
        "INSERT INTO mcp_credentials (server, credentials, updated_at) VALUES (?, ?, ?) ON CONFLICT(server) DO UPDATE SET credentials = excluded.credentials, updated_at = excluded.updated_at",
      )
      .run(server, JSON.stringify(credentials), Date.now());
  }

  /** Forgets a server's credentials (the next connection asks the person again). */
  delete(server: string): void {
    this.#db.prepare("DELETE FROM mcp_credentials WHERE server = ?").run(server);
  }

  close(): void {
    this.#db.close();
  }

  /** Never the tokens, whatever prints this object. */
  toJSON(): { location: string } {
    return { location: this.location };
  }
}
