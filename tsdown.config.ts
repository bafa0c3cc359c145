import { resolve } from "node:path";
import { defineConfig } from "tsdown";

const ROOT_ENTRY = resolve("src/index.ts");

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
  outputOptions: {
    codeSplitting: { groups: [{ name: rootChunk, test: (id) => id.includes("/src/") }] },
    comments: { jsdoc: false, legal: true, annotation: true },
  },
});

/** The modules the root entry loads at once (its static imports, deep); computed once per build. */
let rootGraph: Set<string> | undefined;

/**
 * Everything `import "glassloop"` loads goes into one chunk: the entries share modules in many
 * combinations, and left alone the bundler cuts the root's graph into ~35 chunks, each a file
 * Node's loader reads, compiles and links on its own (~0.8 ms each). Other entries load the chunk
 * whole when they share anything with the root, which programs that use them do anyway.
 */
function rootChunk(
  id: string,
  ctx: { getModuleInfo(id: string): { importedIds: readonly string[] } | null },
) {
  if (rootGraph === undefined) {
    rootGraph = new Set();
    const todo = [ROOT_ENTRY];
    for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
      for (const dep of ctx.getModuleInfo(next)?.importedIds ?? []) {
        if (!rootGraph.has(dep)) {
          rootGraph.add(dep);
          todo.push(dep);
        }
      }
    }
  }
  return id === ROOT_ENTRY || rootGraph.has(id) ? "core" : null;
}
