import { describe, expect, it } from "vitest";
import { POSTGRES_SKIP, postgresUrl } from "../../test/helpers/postgres.js";
import { loadPg, type PgPoolConfig } from "../store/postgres/pg-driver.js";
import { dbosSystemUrl } from "./sdk.js";

const optionsOf = (url: string) => new URL(url).searchParams.get("options");

describe("the URL glassloop hands to DBOS", () => {
  it("carries DBOS's idle-in-transaction timeout in the startup options, so DBOS queues no SET on each new connection", () => {
    const url = dbosSystemUrl("postgres://app:secret@db.internal:5432/agents?connect_timeout=5");
    expect(optionsOf(url)).toBe("-c idle_in_transaction_session_timeout=60000");
    const kept = new URL(url);
    expect([kept.username, kept.password, kept.host, kept.pathname]).toEqual([
      "app",
      "secret",
      "db.internal:5432",
      "/agents",
    ]);
    expect(kept.searchParams.get("connect_timeout")).toBe("5");
  });

  it("adds to the user's own startup options, and leaves a timeout the user set alone", () => {
    const withOptions = dbosSystemUrl("postgres://h/db?options=-c%20search_path%3Dapp");
    expect(optionsOf(withOptions)).toBe("-c search_path=app -c idle_in_transaction_session_timeout=60000");
    const own = "postgres://h/db?options=-c%20idle_in_transaction_session_timeout%3D5000";
    expect(dbosSystemUrl(own)).toBe(own);
  });

  it("hands over a string that is not a URL unchanged (DBOS reports it as it would)", () => {
    expect(dbosSystemUrl("host=/var/run/postgresql dbname=agents")).toBe(
      "host=/var/run/postgresql dbname=agents",
    );
  });

  it.skipIf(POSTGRES_SKIP !== undefined)(
    "a server opened with that URL applies the timeout from the first query on",
    async () => {
      const pg = loadPg();
      const pool = new pg.Pool({
        connectionString: dbosSystemUrl(await postgresUrl()),
        max: 1,
      } as PgPoolConfig);
      try {
        const shown = await pool.query<{ idle_in_transaction_session_timeout: string }>(
          "show idle_in_transaction_session_timeout",
        );
        expect(shown.rows[0]?.idle_in_transaction_session_timeout).toBe("1min");
      } finally {
        await pool.end();
      }
    },
  );
});
