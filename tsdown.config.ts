import { resolve } from "node:path";
import { defineConfig } from "tsdown";

const ROOT_ENTRY = resolve("src/index.ts");
/** Entries a program may load without the root: what they share with it stays out of `core`. */
const LEAN_ENTRIES = ["src/cli/main.ts", "src/entries/store.ts", "src/entries/trace.ts"];

// Few files per entry: Node's ESM loader pays per module file, and ~150 small modules cost more
// import time than all of glassloop's own code (numbers in docs/benchmarks.md; see rootChunk).
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
    // The lean entries' share first: a chunk takes its modules' imports with it.
    codeSplitting: {
      groups: [
        {
          name: (id, ctx) => (rootChunk(id, ctx) === "lean" ? "lean" : null),
          test: (id) => id.includes("/src/"),
          priority: 2,
        },
        { name: rootChunk, test: (id) => id.includes("/src/"), priority: 1 },
      ],
    },
    comments: { jsdoc: false, legal: true, annotation: true },
  },
});

type ModuleGraph = { getModuleInfo(id: string): { importedIds: readonly string[] } | null };

/** Which chunk each module of the root's graph goes in; worked out once per build. */
let layout: Map<string, string> | undefined;

/**
 * Everything `import "glassloop"` loads goes into two chunks: the entries share modules in many
 * combinations, and left alone the bundler cut the root's graph into ~35 chunks, each a file
 * Node's loader reads, compiles and links on its own (~0.8 ms each). `lean` holds what an entry
 * used on its own also loads (the CLI's `--help`, a script reading stored runs or traces: errors,
 * redaction, the trace format), so those do not load the runtime and zod; `core` the rest.
 */
function rootChunk(id: string, ctx: ModuleGraph): string | null {
  if (layout === undefined) {
    const alone = LEAN_ENTRIES.map((entry) => staticGraph(resolve(entry), ctx));
    layout = new Map();
    for (const module of staticGraph(ROOT_ENTRY, ctx)) {
      layout.set(module, alone.some((graph) => graph.has(module)) ? "lean" : "core");
    }
  }
  return layout.get(id) ?? null;
}

/** `entry` and the modules it imports statically, deep (what loading it loads). */
function staticGraph(entry: string, ctx: ModuleGraph): Set<string> {
  const graph = new Set([entry]);
  const todo = [entry];
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    for (const dep of ctx.getModuleInfo(next)?.importedIds ?? []) {
      if (!graph.has(dep)) {
        graph.add(dep);
        todo.push(dep);
      }
    }
  }
  return graph;
}
