import { defineConfig } from "tsdown";

// One bundle per entry: Node's ESM loader pays per module file, and ~150 small modules cost more
// import time than all of glassloop's own code (numbers in docs/benchmarks.md).
export default defineConfig({
  entry: {
    index: "src/index.ts",
    testing: "src/testing.ts",
    models: "src/entries/models.ts",
    store: "src/entries/store.ts",
    memory: "src/entries/memory.ts",
    tools: "src/entries/tools.ts",
    trace: "src/entries/trace.ts",
    multi: "src/entries/multi.ts",
    guardrails: "src/entries/guardrails.ts",
    "mcp/index": "src/mcp/index.ts",
    otel: "src/otel.ts",
    "evals/index": "src/evals/index.ts",
    "store/postgres/index": "src/store/postgres/index.ts",
    "scale/index": "src/scale/index.ts",
    "serve/index": "src/serve/index.ts",
    "a2a/index": "src/a2a/index.ts",
    "cli/main": "src/cli/main.ts",
  },
  format: "esm",
  platform: "node",
  target: "node20",
  outDir: "dist",
  dts: true,
  sourcemap: true,
  // It runs on every `npm ci` (the `prepare` script): say what went wrong, not every file's size.
  report: false,
  checks: { pluginTimings: false },
  // dist/viewer is built by Vite next to the bundles; keep it.
  clean: false,
  // Everything installed beside glassloop (dependencies, optional peers like node-llama-cpp, and
  // tsx, which the CLI loads for .ts agent modules) stays an import; optional ones load only when used.
  deps: { skipNodeModulesBundle: true },
});
