import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type ImportEdge, importGraph, roomOf, runtimeCycles } from "./helpers/import-graph.js";

// The rooms of docs/architecture.md and the floor each stands on: a room imports rooms on its own
// floor or below, never above (types included). A path ending in `.ts` is one file; otherwise a
// folder, and the most specific entry wins (`tools/builtin` over `tools`).
const FLOORS: Record<string, number> = {
  // 1: the vocabulary and the error classes beside it.
  vocabulary: 1,
  "errors.ts": 1,
  "optional-dependency.ts": 1,
  "package-root.ts": 1,
  // 2: what a tool is and how a call runs; how a model is called; what is persisted.
  tools: 2,
  environment: 2,
  models: 2,
  "models/http": 2,
  "store/store.ts": 2,
  "store/errors.ts": 2,
  // The image and file parts' checks and how a tool's return value becomes them: import only the
  // vocabulary, used by environment/ and the providers.
  "memory/images.ts": 2,
  "memory/files.ts": 2,
  "memory/tool-content.ts": 2,
  // 3: behind a floor-2 interface: providers and the model-string resolver, store
  // implementations, memory strategies, built-in tools.
  "tools/builtin": 3,
  "models/anthropic": 3,
  "models/google": 3,
  "models/local": 3,
  "models/openai": 3,
  "models/openai-responses": 3,
  "models/prompted": 3,
  "models/prompted.ts": 3,
  "models/replay": 3,
  "models/replay.ts": 3,
  "models/presets.ts": 3,
  "models/resolve.ts": 3,
  store: 3,
  memory: 3,
  // 4: the loop (agent/ but for the files that assemble an agent): budget, model call, answer,
  // the turn's calls, decide, and the hook interface the features attach through.
  agent: 4,
  // 5: the features, each written against agent/hooks.ts, and the agent that assembles them for a
  // run (the Agent class, its config, limits checks and tools, the run's state and features, the
  // hook composer).
  features: 5,
  "agent/agent.ts": 5,
  "agent/agent-config.ts": 5,
  "agent/agent-tools.ts": 5,
  "agent/compose-hooks.ts": 5,
  "agent/event-channel.ts": 5,
  "agent/limits-check.ts": 5,
  "agent/run-features.ts": 5,
  "agent/run-start.ts": 5,
  // scale/ runs agents as DBOS workflows across workers (a feature of floor 5 built on the Agent).
  scale: 5,
  // 6: surfaces, built on the public API.
  multi: 6,
  trace: 6,
  mcp: 6,
  cli: 6,
  evals: 6,
  // glassloop/serve: agents behind HTTP (the AI SDK UI stream, AG-UI, the chat page's API).
  serve: 6,
  testing: 6,
  "testing.ts": 6,
  "otel.ts": 6,
  "index.ts": 6,
  // The subpath entries (`glassloop/models`, …): one file each, a deliberate list of names.
  entries: 6,
};

// Imports that break the rule today, each with why and what removes it. The test fails on a new
// one, and on one listed here that is gone, so this list only shrinks.
const KNOWN_UPWARD: { from: string; to: string; why: string }[] = [
  {
    from: "agent/agent.ts",
    to: "multi/as-tool.ts",
    why: "Agent.asTool() builds a sub-agent tool; moves to multi/ when the root API is layered (issue 13 item 4)",
  },
  {
    from: "models/replay.ts",
    to: "trace/request-diff.ts",
    why: "ReplayModel names the first differing request field; the diff belongs below trace/ (issue 13, next session)",
  },
  {
    from: "models/replay.ts",
    to: "trace/trace-format.ts",
    why: "ReplayModel reads a trace file; the trace format belongs below trace/ (issue 13, next session)",
  },
];

const LOOP_FLOOR = 4;
const SRC = fileURLToPath(new URL("../src", import.meta.url));
const ROOMS = Object.keys(FLOORS);
const floorOf = (file: string) => FLOORS[roomOf(file, ROOMS)] ?? 0;
const edges: ImportEdge[] = importGraph(SRC);
const upward = edges.filter((e) => floorOf(e.to) > floorOf(e.from));
const describeEdge = (e: { from: string; to: string }) =>
  `${e.from} (floor ${floorOf(e.from)}) -> ${e.to} (floor ${floorOf(e.to)})`;

describe("the import graph of src/", () => {
  it("is read: every source file has a room and every relative import resolves", () => {
    expect(edges.length).toBeGreaterThan(500);
    for (const e of edges) {
      expect(() => floorOf(e.from)).not.toThrow();
      expect(() => floorOf(e.to)).not.toThrow();
    }
  });

  it("has no runtime import cycle (type-only and dynamic imports cannot make one)", () => {
    expect(runtimeCycles(edges)).toEqual([]);
  });

  it("has no room importing a room on a higher floor, besides the listed ones", () => {
    const known = new Set(KNOWN_UPWARD.map((k) => `${k.from} -> ${k.to}`));
    const unlisted = upward.filter((e) => !known.has(`${e.from} -> ${e.to}`)).map(describeEdge);
    expect(unlisted).toEqual([]);
  });

  it("still has every listed exception (a fixed one is taken off the list)", () => {
    const present = new Set(upward.map((e) => `${e.from} -> ${e.to}`));
    const gone = KNOWN_UPWARD.filter((k) => !present.has(`${k.from} -> ${k.to}`)).map(describeEdge);
    expect(gone).toEqual([]);
  });

  it("keeps the vocabulary free of every other room, and the rooms below the loop free of agent/", () => {
    const vocabularyOut = edges.filter(
      (e) => e.from.startsWith("vocabulary/") && !e.to.startsWith("vocabulary/"),
    );
    expect(vocabularyOut.map(describeEdge)).toEqual([]);
    const below = edges.filter((e) => floorOf(e.from) < LOOP_FLOOR && e.to.startsWith("agent/"));
    expect(below.map(describeEdge)).toEqual([]);
  });

  it("keeps the loop free of the features, and only the agent imports the loop", () => {
    const loopFiles = (file: string) => floorOf(file) === LOOP_FLOOR && file.startsWith("agent/");
    const intoFeatures = edges.filter((e) => loopFiles(e.from) && floorOf(e.to) > LOOP_FLOOR);
    expect(intoFeatures.map(describeEdge)).toEqual([]);
    const importers = edges.filter((e) => e.to === "agent/loop.ts").map((e) => e.from);
    expect(importers).toEqual(["agent/agent.ts"]);
    expect(edges.some((e) => e.from.startsWith("features/") && e.to === "agent/hooks.ts")).toBe(true);
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
  });

  it("marks `import type` erased and `import { type X }` kept, as verbatimModuleSyntax emits them", () => {
    const fromVocabulary = edges.filter((e) => e.from === "errors.ts" && e.to.startsWith("vocabulary/"));
    expect(fromVocabulary.length).toBeGreaterThan(0);
    expect(fromVocabulary.every((e) => e.typeOnly)).toBe(true);
    const loopToErrors = edges.find((e) => e.from === "agent/loop.ts" && e.to === "errors.ts");
    expect(loopToErrors?.typeOnly).toBe(false);
  });
});
