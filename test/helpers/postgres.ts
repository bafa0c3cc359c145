/**
 * Postgres for the test suite. The vitest global setup hands every worker one directory; the first
 * test file that asks for a server starts the cluster there (under a mkdir lock) and the others
 * reuse it, so a run without Postgres tests never starts one. The global teardown stops it.
 * Without Postgres binaries the tests are skipped with a message (a developer machine without it),
 * except in CI or with GLASSLOOP_REQUIRE_POSTGRES=1 (set by .ci/run), where that is a failure.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import { PG_BIN, postgresInstalled, startCluster } from "./postgres-cluster.js";

declare module "vitest" {
  export interface ProvidedContext {
    postgresDir: string;
  }
}

/** Why the Postgres tests are skipped here, or undefined when they run. */
export const POSTGRES_SKIP: string | undefined = (() => {
  if (postgresInstalled()) return undefined;
  if (process.env.CI === "true" || process.env.GLASSLOOP_REQUIRE_POSTGRES === "1")
    throw new Error(
      `CI=true or GLASSLOOP_REQUIRE_POSTGRES=1 but Postgres is not installed at ${PG_BIN}: .ci/run installs postgresql-15`,
    );
  return `Postgres tests skipped: no initdb/pg_ctl in ${PG_BIN} (apt-get install -y postgresql-15, or set GLASSLOOP_PG_BIN)`;
})();
if (POSTGRES_SKIP) console.warn(POSTGRES_SKIP);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The shared test server's URL, starting it if this is the first file that needs it. */
export async function postgresUrl(): Promise<string> {
  const base = inject("postgresDir");
  const ready = join(base, "ready.json");
  const failed = join(base, "failed.txt");
  let starter = false;
  try {
    mkdirSync(join(base, "lock"));
    starter = true;
  } catch {
    // Another file is starting it.
  }
  if (starter) {
    try {
      const cluster = await startCluster({ base: join(base, "cluster") });
      writeFileSync(ready, JSON.stringify({ url: cluster.url, dir: cluster.dir }));
    } catch (error) {
      writeFileSync(failed, String(error));
      throw error;
    }
  }
  for (let waited = 0; waited < 120_000; waited += 50) {
    if (existsSync(ready)) return (JSON.parse(readFileSync(ready, "utf8")) as { url: string }).url;
    if (existsSync(failed))
      throw new Error(`the test Postgres failed to start: ${readFileSync(failed, "utf8")}`);
    await sleep(50);
  }
  throw new Error("the test Postgres did not start within 120 s");
}

let schemas = 0;
/** A schema name no other test uses, so each test gets empty tables on the shared server. */
export function freshSchema(): string {
  schemas += 1;
  return `t_${process.pid}_${Date.now().toString(36)}_${schemas}`;
}
