import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The package's entries (`glassloop`, `glassloop/models`, …) resolve to their sources, from the one
// list tsconfig.json's `paths` keeps; the longest specifier first, so `glassloop` never swallows
// `glassloop/models`.
const tsconfig = JSON.parse(readFileSync(new URL("./tsconfig.json", import.meta.url), "utf8")) as {
  compilerOptions: { paths: Record<string, [string]> };
};
const alias = Object.entries(tsconfig.compilerOptions.paths)
  .filter(([specifier]) => specifier === "glassloop" || specifier.startsWith("glassloop/"))
  .sort(([a], [b]) => b.length - a.length)
  .map(([find, [target]]) => ({ find, replacement: fileURLToPath(new URL(target, import.meta.url)) }));

export default defineConfig({
  resolve: { alias },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Builds the trace viewer's page (dist/viewer) when missing or stale; the browser tests serve it.
    // The shared test Postgres: a directory here, the server started by the first test that needs it.
    globalSetup: [
      "test/helpers/build-viewer.ts",
      "test/helpers/postgres-setup.ts",
      "test/helpers/browser-setup.ts",
    ],
    // Type-level tests (*.test-d.ts) are checked by `tsc --noEmit`, which `npm test` runs first;
    // running vitest's typecheck too would type-check the whole project a second time.
    testTimeout: 30_000,
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core CI machine, which
    // left a core idle while tests wait on their child processes and servers. One file per core.
    maxWorkers: Math.max(2, availableParallelism()),
    // Starting chromium or a child server can take seconds on a loaded 2-core CI machine.
    hookTimeout: 60_000,
  },
});
