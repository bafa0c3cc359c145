import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type ImportEdge, importCycles, importGraph, roomOf, runtimeCycles } from "./helpers/import-graph.js";

// The folders of docs/architecture.md and the floor each stands on: a file imports files on its own
// floor or below, never above; type-only and dynamic imports count too. The most specific folder
// wins (`tools/builtin` over `tools`); a folder or root file not listed is a surface (SURFACE), which
// nothing below may import.
const FLOORS: Record<string, number> = {
  // 1: the vocabulary, the error classes, message parts' checks, redaction.
  core: 1,
  // 2: the interfaces: what a tool is; how a model is called (and the HTTP layer); what is persisted.
  tools: 2,
  models: 2,
  store: 2,
  // 3: behind a floor-2 interface: providers, store implementations, memory, built-in tools.
  providers: 3,
  memory: 3,
  "tools/builtin": 3,
  "store/sqlite": 3,
  "store/postgres": 3,
  // 4: the loop: budget, model call, answer, the turn's calls and their environment, decide, hooks.
  loop: 4,
  // 5: the features, each written against loop/hooks.ts.
  features: 5,
  // 6: the agent, which assembles a run's state and features and runs the loop.
  agent: 6,
};
/** multi/, trace/, mcp/, cli/, evals/, scale/, testing/, entries/ and the root files. */
const SURFACE = 7;

// Imports that break the rule today, each with why and what removes it. The test fails on a new
// one, and on one listed here that is gone, so this list only shrinks.
const KNOWN_UPWARD: { from: string; to: string; why: string }[] = [
  {
    from: "agent/agent.ts",
    to: "multi/as-tool.ts",
    why: "Agent.asTool() builds a sub-agent tool; one agentAsTool in multi/ removes it",
  },
  {
    from: "features/reflect.ts",
    to: "agent/agent.ts",
    why: "modelEvaluator builds a judge Agent through import(); it moves to multi/",
  },
  {
    from: "providers/replay.ts",
    to: "trace/request-diff.ts",
    why: "ReplayModel names the first differing request field; the diff moves below the providers",
  },
  {
    from: "providers/replay.ts",
    to: "trace/trace-format.ts",
    why: "ReplayModel reads a trace file; the trace format moves below the providers",
  },
];

// Import cycles of any kind (value, type-only, dynamic) today, each a sorted list of files; the
// test fails on a new one and on a listed one that is gone.
const KNOWN_CYCLES: string[][] = [
  ["loop/hooks.ts", "loop/run-state.ts"],
  ["features/durability/durable.ts", "features/durability/resume.ts"],
  [
    "agent/agent-config.ts",
    "agent/agent-tools.ts",
    "agent/agent.ts",
    "agent/run-features.ts",
    "features/reflect.ts",
    "multi/as-tool.ts",
  ],
];

const SRC = fileURLToPath(new URL("../src", import.meta.url));
const ROOMS = Object.keys(FLOORS);
const floorOf = (file: string) => {
  const room = roomOf(file, ROOMS);
  return room === undefined ? SURFACE : (FLOORS[room] ?? SURFACE);
};
const edges: ImportEdge[] = importGraph(SRC);
const upward = edges.filter((e) => floorOf(e.to) > floorOf(e.from));
const describeEdge = (e: { from: string; to: string }) =>
  `${e.from} (floor ${floorOf(e.from)}) -> ${e.to} (floor ${floorOf(e.to)})`;
const sortCycles = (cycles: string[][]) => cycles.map((c) => c.join(" ")).sort();

describe("the import graph of src/", () => {
  it("is read: every relative import resolves, dynamic and type-only ones included", () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges.some((e) => e.dynamic)).toBe(true);
    expect(edges.some((e) => e.typeOnly)).toBe(true);
  });

  it("has no runtime import cycle", () => {
    expect(runtimeCycles(edges)).toEqual([]);
  });

  it("has no import cycle of any kind (value, type-only, dynamic) besides the listed ones", () => {
    expect(sortCycles(importCycles(edges))).toEqual(sortCycles(KNOWN_CYCLES));
  });

  it("has no file importing a folder on a higher floor, besides the listed ones", () => {
    const known = new Set(KNOWN_UPWARD.map((k) => `${k.from} -> ${k.to}`));
    const unlisted = upward.filter((e) => !known.has(`${e.from} -> ${e.to}`)).map(describeEdge);
    expect(unlisted).toEqual([]);
  });

  it("still has every listed exception (a fixed one is taken off the list)", () => {
    const present = new Set(upward.map((e) => `${e.from} -> ${e.to}`));
    const gone = KNOWN_UPWARD.filter((k) => !present.has(`${k.from} -> ${k.to}`)).map(describeEdge);
    expect(gone).toEqual([]);
  });

  it("keeps core/ free of every other folder", () => {
    const out = edges.filter((e) => e.from.startsWith("core/") && !e.to.startsWith("core/"));
    expect(out.map(describeEdge)).toEqual([]);
  });

  it("keeps the loop free of the features, and only the agent imports loop/loop.ts", () => {
    const intoFeatures = edges.filter((e) => e.from.startsWith("loop/") && floorOf(e.to) > floorOf(e.from));
    expect(intoFeatures.map(describeEdge)).toEqual([]);
    const importers = edges.filter((e) => e.to === "loop/loop.ts").map((e) => e.from);
    expect(importers).toEqual(["agent/agent.ts"]);
    expect(edges.some((e) => e.from.startsWith("features/") && e.to === "loop/hooks.ts")).toBe(true);
  });
});

describe("the graph reader", () => {
  it("finds a cycle through runtime imports and ignores one closed by a type-only import", () => {
    const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({
      from,
      to,
      typeOnly,
      dynamic: false,
    });
    expect(runtimeCycles([edge("a.ts", "b.ts"), edge("b.ts", "c.ts"), edge("c.ts", "a.ts")])).toEqual([
      ["a.ts", "b.ts", "c.ts"],
    ]);
    expect(runtimeCycles([edge("a.ts", "b.ts"), edge("b.ts", "a.ts", true)])).toEqual([]);
    expect(importCycles([edge("a.ts", "b.ts"), edge("b.ts", "a.ts", true)])).toEqual([["a.ts", "b.ts"]]);
  });

  it("marks `import type` erased and `import { type X }` kept, as verbatimModuleSyntax emits them", () => {
    const fromVocabulary = edges.filter(
      (e) => e.from === "core/errors.ts" && e.to.startsWith("core/vocabulary/"),
    );
    expect(fromVocabulary.length).toBeGreaterThan(0);
    expect(fromVocabulary.every((e) => e.typeOnly)).toBe(true);
    const loopToErrors = edges.find((e) => e.from === "loop/loop.ts" && e.to === "core/errors.ts");
    expect(loopToErrors?.typeOnly).toBe(false);
  });
});
