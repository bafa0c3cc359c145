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

describe("the import graph of src/", () => {
  it("is read: every relative import resolves, dynamic and type-only ones included", () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(edges.some((e) => e.dynamic)).toBe(true);
    expect(edges.some((e) => e.typeOnly)).toBe(true);
  });

  it("has no import cycle of any kind: value, type-only or dynamic", () => {
    expect(importCycles(edges)).toEqual([]);
  });

  it("has no file importing a folder on a higher floor", () => {
    expect(upward.map(describeEdge)).toEqual([]);
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

describe('what `import "glassloop"` loads', () => {
  // Runtime imports only: a dynamic import is the way a module stays out until it is needed.
  const loadedByRoot = new Set<string>();
  const pending = ["index.ts"];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    for (const e of edges) {
      if (e.from !== file || e.typeOnly || e.dynamic || loadedByRoot.has(e.to)) continue;
      loadedByRoot.add(e.to);
      pending.push(e.to);
    }
  }

  it("leaves every provider's protocol to its first call, OpenAI's Chat Completions (the default) excepted", () => {
    const translation =
      /^providers\/(?!openai\/)[^/]+\/(protocol|request|response|stream|signing|count|session|generation)\.ts$/;
    expect([...loadedByRoot].filter((f) => translation.test(f)).sort()).toEqual([]);
    expect(loadedByRoot.has("providers/replay/canonical.ts")).toBe(false);
    // The loaders are there, so the split cannot have dropped a provider.
    for (const file of [
      "providers/anthropic/protocol.ts",
      "providers/bedrock/protocol.ts",
      "providers/bedrock/signing.ts",
      "providers/google/protocol.ts",
      "providers/openai-responses/protocol.ts",
      "providers/replay/canonical.ts",
      "providers/local/session.ts",
    ])
      expect(edges.some((e) => e.to === file && e.dynamic)).toBe(true);
    expect(loadedByRoot.has("providers/openai/request.ts")).toBe(true);
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
