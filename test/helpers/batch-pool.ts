import type { PgPool } from "../../src/store/postgres/pg-driver.js";

/**
 * A stand-in `PgPool` for an `EventLog`: it answers every query at once and keeps each batch's
 * JSON text (the statement's third parameter), so a test reads exactly the rows that were written.
 */
export function batchPool(): { pool: PgPool; batches: string[] } {
  const batches: string[] = [];
  const pool = {
    query: async (_sql: string, params: unknown[]) => {
      batches.push(params[2] as string);
      return { rows: [], rowCount: 0 };
    },
  } as unknown as PgPool;
  return { pool, batches };
}
