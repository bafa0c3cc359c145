import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      "glassloop/testing": fileURLToPath(new URL("./src/testing.ts", import.meta.url)),
      "glassloop/mcp": fileURLToPath(new URL("./src/mcp/index.ts", import.meta.url)),
      "glassloop/otel": fileURLToPath(new URL("./src/otel.ts", import.meta.url)),
      "glassloop/evals": fileURLToPath(new URL("./src/evals/index.ts", import.meta.url)),
      "glassloop/postgres": fileURLToPath(new URL("./src/store/postgres/index.ts", import.meta.url)),
      glassloop: fileURLToPath(new URL("./src/index.ts", import.meta.url)),
    },
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Builds the trace viewer's page (dist/viewer) when missing or stale; the browser tests serve it.
    // The shared test Postgres: a directory here, the server started by the first test that needs it.
    globalSetup: ["test/helpers/build-viewer.ts", "test/helpers/postgres-setup.ts"],
    // Type-level tests (*.test-d.ts) are checked by `tsc --noEmit`, which `npm test` runs first;
    // running vitest's typecheck too would type-check the whole project a second time.
    testTimeout: 30_000,
    // Starting chromium or a child server can take seconds on a loaded 2-core CI machine.
    hookTimeout: 60_000,
  },
});
