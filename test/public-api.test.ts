import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { exportedNames, packageEntries } from "../scripts/entry-exports.js";
import { importGraph } from "./helpers/import-graph.js";

// The package's public API in layers (docs/architecture.md, "The public API in layers"): the root
// for what every program needs, one subpath entry per room for the rest, internals nowhere.
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const read = (file: string) => JSON.parse(readFileSync(`${ROOT}/${file}`, "utf8"));
const pkg = read("package.json") as { exports: Record<string, { types: string; import: string }> };
const paths = (read("tsconfig.json") as { compilerOptions: { paths: Record<string, [string]> } })
  .compilerOptions.paths;
const tsdownEntries = () => {
  const text = readFileSync(`${ROOT}/tsdown.config.ts`, "utf8");
  const block = /entry: \{([\s\S]*?)\}/.exec(text)?.[1] ?? "";
  return Object.fromEntries(
    [...block.matchAll(/^\s*"?([\w/-]+)"?: "([^"]+)"/gm)].map((m) => [m[1] as string, m[2] as string]),
  );
};

describe("the package's entries", () => {
  it("are one list: each export of package.json is a tsdown entry built from the file tsconfig's paths name", () => {
    const built = tsdownEntries();
    for (const [key, target] of Object.entries(pkg.exports)) {
      const specifier = key === "." ? "glassloop" : `glassloop/${key.slice(2)}`;
      const source = paths[specifier]?.[0]?.replace(/^\.\//, "");
      expect(source, `${specifier} in tsconfig.json's paths`).toBeDefined();
      const name = target.import.replace(/^\.\/dist\//, "").replace(/\.mjs$/, "");
      expect(built[name], `${specifier}: tsdown entry "${name}"`).toBe(source);
      expect(target.types).toBe(`./dist/${name}.d.mts`);
    }
    const specifiers = Object.keys(paths).filter((p) => p === "glassloop" || p.startsWith("glassloop/"));
    expect(specifiers.length).toBe(Object.keys(pkg.exports).length);
  });

  it("re-export lists, never `export *`, in any entry", () => {
    for (const file of ["src/index.ts", ...Object.values(tsdownEntries())]) {
      expect(readFileSync(`${ROOT}/${file}`, "utf8"), file).not.toMatch(/export (type )?\* from/);
    }
  });
});

describe("the default store", () => {
  // What loads when `agent.ts` loads, following only static runtime imports (an `import()` loads on
  // demand; `import type` is erased).
  const edges = importGraph(`${ROOT}/src`);
  const loadedWith = (start: string): Set<string> => {
    const seen = new Set([start]);
    const queue = [start];
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      for (const e of edges) {
        if (e.from !== file || e.typeOnly || e.dynamic || seen.has(e.to)) continue;
        seen.add(e.to);
        queue.push(e.to);
      }
    }
    return seen;
  };
  const SQLITE = /^store\/sqlite\/(sqlite-[\w-]+|default-store|migrations)\.ts$/;

  it("is not loaded with the agent or the root: they reach the SQLite store only through import()", () => {
    for (const start of ["agent/agent.ts", "index.ts"]) {
      expect(
        [...loadedWith(start)].filter((f) => SQLITE.test(f)),
        start,
      ).toEqual([]);
    }
    expect(edges).toContainEqual(
      expect.objectContaining({
        from: "store/sqlite/deferred-default-store.ts",
        to: "store/sqlite/default-store.ts",
        dynamic: true,
      }),
    );
  });
});

// The rule: the root holds what a program needs to define tools, build and run an agent (with a
// model string or its own Model), read its result, transcript and events, and catch what a run
// throws. Everything a program constructs besides (a provider object, a store, a memory strategy,
// a built-in tool, a trace, a router) comes from that room's entry.
const ROOT_NAMES = {
  agent: ["Agent", "AgentConfig", "AgentStream", "ModelSettings", "ResumeOptions", "RunOptions", "RunResult"],
  "the agent's options": [
    "ApprovalHandler",
    "EnvironmentOptions",
    "Guardrails",
    "LoopGuardOptions",
    "PendingApproval",
  ],
  tools: [
    "AgentTool",
    "RegisterOptions",
    "Tool",
    "ToolDefinition",
    "ToolRegistry",
    "ToolRunOptions",
    "ToolSource",
    "tool",
  ],
  vocabulary: [
    "AgentEvent",
    "AssistantMessage",
    "ErrorCode",
    "FilePart",
    "FinishReason",
    "ImagePart",
    "LimitName",
    "Limits",
    "Message",
    "ReasoningPart",
    "RunStatus",
    "RunUsage",
    "StepUsage",
    "SystemMessage",
    "TokenUsage",
    "ToolCall",
    "ToolMessage",
    "ToolOutcome",
    "ToolOutcomeStatus",
    "UserMessage",
  ],
  "the Model interface and model strings": [
    "JsonSchema",
    "Model",
    "ModelDelta",
    "ModelObserver",
    "ModelPrice",
    "ModelRequest",
    "ModelResponse",
    "ToolChoice",
    "ToolSpec",
    "resolveModel",
  ],
  "the errors a run throws": [
    "ApprovalNotWaitingError",
    "ApprovalRequiredError",
    "AuthenticationError",
    "BudgetExceededError",
    "ConfigError",
    "ContextOverflowError",
    "GlassloopError",
    "GuardrailFailedError",
    "GuardrailTripwireError",
    "InputTooLargeError",
    "LoopDetectedError",
    "MissingDependencyError",
    "ModelBehaviorError",
    "ModelCallError",
    "NotAFileError",
    "PathOutsideError",
    "ProviderError",
    "READ_CAPS",
    "RateLimitError",
    "ReadKind",
    "RunAbortedError",
    "RunError",
    "RunErrorState",
    "RunNotResumableError",
    "SessionBusyError",
    "StoreError",
    "ToolError",
    "UnknownRunError",
    "runStatusOf",
  ],
  "the store it persists to": ["Store"],
};

// Helpers the rooms share among themselves; a user never needs them, so no entry exports them.
const INTERNAL = [
  "CHARS_PER_TOKEN",
  "MIGRATIONS",
  "SCHEMA_VERSION",
  "calculate",
  "checkToolName",
  "errorFields",
  "errorForStatus",
  "fixedTokens",
  "groupByRun",
  "isContextOverflow",
  "isPrivateAddress",
  "parseLocalModelName",
  "parseTraceText",
  "planTool",
  "readEvents",
  "renderForSummary",
  "toolSpec",
  "tracePath",
];

describe("the root entry", () => {
  const names = exportedNames(packageEntries().map((e) => e.file));

  it("holds what a program needs to define tools, run an agent, read its results and events and catch its errors: exactly these names", () => {
    const root = (names.get("src/index.ts") ?? []).map((n) => n.name);
    expect(root).toEqual(Object.values(ROOT_NAMES).flat().sort());
    expect(root.length).toBeLessThanOrEqual(80);
  });

  it("glassloop/serve holds the handler, its Node server, its options and its errors: exactly these names", () => {
    const serve = (names.get("src/serve/index.ts") ?? []).map((n) => n.name);
    expect(serve).toEqual(
      [
        "AgentInfo",
        "ApprovalItem",
        "ApprovalRecord",
        "AttachmentNote",
        "ChatRecord",
        "CorsOptions",
        "DEFAULT_SERVE_DB",
        "FieldError",
        "LeaseLostError",
        "LogEntry",
        "LogItem",
        "NodeServer",
        "NodeServerOptions",
        "NewServeRun",
        "PageDirs",
        "PostgresServeLog",
        "Principal",
        "ProblemCode",
        "RunQuery",
        "RunRecord",
        "ServeAgentFactory",
        "ServeAttachments",
        "ServeAuth",
        "ServeConfigError",
        "ServeHandler",
        "ServeLimits",
        "ServeLog",
        "ServeModule",
        "ServeNotice",
        "ServeOptions",
        "ServeRequestError",
        "ServeRunStatus",
        "ServeScaleOptions",
        "ServeStats",
        "SqliteServeLog",
        "createHandler",
        "defineServe",
        "startServer",
      ].sort(),
    );
  });

  it("glassloop/a2a holds the A2A server and client, their options, errors and wire types: exactly these names", () => {
    const a2a = (names.get("src/a2a/index.ts") ?? []).map((n) => n.name);
    expect(a2a).toEqual(
      [
        "A2AAgentCard",
        "A2AAgentOptions",
        "A2AAgentResult",
        "A2AAgentSkill",
        "A2AClient",
        "A2AClientOptions",
        "A2AInputAnswer",
        "A2AInputRequest",
        "A2APeerError",
        "A2APeerReason",
        "A2APeerSend",
        "A2APeerTask",
        "a2aAgent",
        "a2aToolSource",
        "A2AToolSourceOptions",
        "A2AArtifact",
        "A2AAuthScheme",
        "A2ACardOptions",
        "A2AExtendedCard",
        "A2AHandlerOptions",
        "A2AMessage",
        "A2APart",
        "A2APushConfig",
        "A2APushDelivery",
        "A2APushOptions",
        "A2APushProgress",
        "A2APushStore",
        "A2ARequestError",
        "A2AServeOptions",
        "A2ATask",
        "A2ATaskHistory",
        "A2ATaskState",
        "A2ATaskStatus",
        "createA2AHandler",
        "MemoryPushStore",
        "MemoryTaskHistory",
        "SqliteA2AStore",
      ].sort(),
    );
  });

  it("resolves every built-in model string with nothing imported but the root", async () => {
    // This file imports no provider module itself: the root's own imports register the prefixes.
    const { resolveModel } = await import("glassloop");
    const keys = ["OPENAI", "ANTHROPIC", "GEMINI", "OPENROUTER", "DEEPSEEK", "GROQ"];
    const env = Object.fromEntries(keys.map((k) => [`${k}_API_KEY`, "k"]));
    const strings = [
      "openai:gpt-4o-mini",
      "openai-responses:gpt-5",
      "anthropic:claude-sonnet-4-5",
      "google:gemini-2.5-flash",
      "ollama:llama3.2",
      "openrouter:openai/gpt-4o-mini",
      "deepseek:deepseek-chat",
      "groq:llama-3.3-70b-versatile",
      "local:./model.gguf",
    ];
    expect(strings.map((s) => resolveModel(s, env).id)).toEqual(strings);
  });

  it("exports no internal helper, and neither does any other entry", () => {
    for (const [file, list] of names) {
      expect(
        list.map((n) => n.name).filter((n) => INTERNAL.includes(n)),
        file,
      ).toEqual([]);
    }
  });
});
