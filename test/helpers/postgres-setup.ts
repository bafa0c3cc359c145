/** Vitest global setup: a directory for the shared test Postgres (started on demand), stopped at the end. */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { PG_BIN } from "./postgres-cluster.js";

export default function postgresSetup(project: TestProject): () => void {
  const base = mkdtempSync(join(tmpdir(), "glassloop-test-pg-"));
  // The server runs as another user when this is root; it must reach its directories in here.
  chmodSync(base, 0o755);
  project.provide("postgresDir", base);
  return () => {
    const ready = join(base, "ready.json");
    if (existsSync(ready)) {
      const { dir } = JSON.parse(readFileSync(ready, "utf8")) as { dir: string };
      const data = join(dir, "data");
      const asRoot = process.getuid?.() === 0;
      const ctl = join(PG_BIN, "pg_ctl");
      const args = ["-D", data, "-m", "immediate", "-w", "stop"];
      try {
        execFileSync(asRoot ? "runuser" : ctl, asRoot ? ["-u", "postgres", "--", ctl, ...args] : args, {
          stdio: "ignore",
        });
      } catch {
        // Already gone; the directory goes anyway.
      }
    }
    rmSync(base, { recursive: true, force: true });
  };
}
