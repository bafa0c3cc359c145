import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InstalledProject, packAndInstall, ROOT, sh, sizeOf } from "./helpers/packed.js";

// What a user gets: `npm pack` (its prepack builds dist/), the tarball installed into an empty
// project outside the repository with production dependencies only, then used the way the README
// says: the CLI through npx, the library from plain node ESM and from TypeScript under --strict.
let installed: InstalledProject;
const node = (args: string[], cwd = installed.dir) =>
  spawnSync(process.execPath, args, { cwd, encoding: "utf8", timeout: 170_000 });

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
  exports: Record<string, { types: string; import: string }>;
  bin: Record<string, string>;
};

let manifestBefore: string;

beforeAll(() => {
  manifestBefore = readFileSync(join(ROOT, "package.json"), "utf8");
  installed = packAndInstall();
}, 600_000);

afterAll(() => {
  if (installed) rmSync(join(installed.dir, ".."), { recursive: true, force: true });
});

describe("the tarball", () => {
  it("holds the built entries, the viewer and the docs, and no tests, fixtures or sources", () => {
    const files = installed.files;
    const targets = [
      ...Object.values(pkg.exports).flatMap((e) => [e.types, e.import]),
      ...Object.values(pkg.bin),
    ];
    for (const target of targets) expect(files).toContain(target.replace(/^\.\//, ""));
    expect(files).toContain("dist/viewer/index.html");
    expect(files).toContain("README.md");
    expect(files).toContain("package.json");
    const allowed =
      /^(dist\/|docs\/[^/]+\.md$|recordings\/[^/]+\.(jsonl|md)$|recordings\/evals\/[\w./-]+\.(mjs|json|jsonl)$|README\.md$|package\.json$|LICENSE$)/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
    expect(files.filter((f) => /\.test(-d)?\.|(^|\/)(test|fixtures|src)\//.test(f))).toEqual([]);
    expect(files).not.toContain("dist/.build-hash");
  });

  it("has source maps for its own bundles only, none pointing at tests", () => {
    const maps = installed.files.filter((f) => f.endsWith(".map"));
    expect(maps.length).toBeGreaterThan(0);
    const root = join(installed.dir, "node_modules", "glassloop");
    for (const map of maps) {
      const { sources } = JSON.parse(readFileSync(join(root, map), "utf8")) as { sources: string[] };
      expect(
        sources.filter((s) => /\.test(-d)?\.ts$|\/test\//.test(s)),
        map,
      ).toEqual([]);
    }
  });
});

describe("npm i glassloop into an empty project", () => {
  it("installs no local-model engine and no MCP SDK, and stays under 100 MB", () => {
    const modules = join(installed.dir, "node_modules");
    for (const optional of ["node-llama-cpp", "@node-llama-cpp", "@modelcontextprotocol", "@opentelemetry"]) {
      expect(existsSync(join(modules, optional)), optional).toBe(false);
    }
    const megabytes = sizeOf(modules) / 1e6;
    expect(megabytes).toBeLessThan(100);
  });

  it("asks to approve better-sqlite3's install script alone: the tarball's package.json carries no install-time script of glassloop's", () => {
    const list = sh("npm", ["install-scripts", "ls"], installed.dir, 60_000);
    expect(list.status, list.stderr).toBe(0);
    const pending = [...list.stdout.matchAll(/^\s+(\S+)@\d\S* \((\w+):/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(pending).toEqual(["better-sqlite3 install"]);
    const packed = JSON.parse(
      readFileSync(join(installed.dir, "node_modules", "glassloop", "package.json"), "utf8"),
    ) as { scripts?: Record<string, string> };
    for (const script of ["preinstall", "install", "postinstall", "prepare"])
      expect(packed.scripts?.[script], script).toBeUndefined();
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    expect(readme).toContain("npm install-scripts approve better-sqlite3");
    expect(readme).toContain("npm install-scripts approve glassloop");
  });

  it("leaves the repository's package.json as it was: prepare stays for clones and github: installs", () => {
    expect(readFileSync(join(ROOT, "package.json"), "utf8")).toBe(manifestBefore);
    expect(existsSync(join(ROOT, "package.json.prepack"))).toBe(false);
    expect((JSON.parse(manifestBefore) as { scripts: Record<string, string> }).scripts.prepare).toBeDefined();
  });
});

describe("the installed package", () => {
  it("npx glassloop --help and --version", () => {
    const help = sh("npx", ["--offline", "glassloop", "--help"], installed.dir, 60_000);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain("demo");
    const version = sh("npx", ["--offline", "glassloop", "--version"], installed.dir, 60_000);
    expect(version.stdout.trim()).toBe(pkg.version);
  });

  it("npx glassloop demo runs the calculator example offline and answers 420", () => {
    const demo = sh("npx", ["--offline", "glassloop", "demo"], installed.dir, 120_000);
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stdout).toContain("420");
  });

  it("with no key, the shipped eval replays offline from the installed package (the path the no-model message prints there)", () => {
    const shipped = "node_modules/glassloop/recordings/evals";
    const replayed = sh(
      "npx",
      [
        "--offline",
        "glassloop",
        "eval",
        `${shipped}/calculator.eval.mjs`,
        "--replay",
        `${shipped}/calculator`,
      ],
      installed.dir,
      60_000,
    );
    expect(replayed.status, replayed.stderr).toBe(0);
    expect(replayed.stdout).toContain("pass rate   100%");
  });

  it("an ESM file imports glassloop, glassloop/store and glassloop/testing and runs the calculator", () => {
    writeFileSync(
      join(installed.dir, "calculator.mjs"),
      `import { z } from "zod";
import { Agent, tool } from "glassloop";
import { SqliteStore } from "glassloop/store";
import { ScriptedModel } from "glassloop/testing";

const numbers = z.object({ a: z.number(), b: z.number() });
const add = tool({ name: "add", description: "Adds two numbers.", input: numbers, run: ({ a, b }) => a + b });
const multiply = tool({ name: "multiply", description: "Multiplies two numbers.", input: numbers, run: ({ a, b }) => a * b });
const model = new ScriptedModel([
  { toolCalls: [{ name: "add", args: { a: 200, b: 10 } }] },
  { toolCalls: [{ name: "multiply", args: { a: 210, b: 2 } }] },
  { text: "420" },
]);
const agent = new Agent({ instructions: "Perform arithmetic with the tools.", model, tools: [add, multiply], store: new SqliteStore({ path: ":memory:" }) });
const result = await agent.run("Add 200 and 10, then multiply the result by 2.");
const tools = result.messages.filter((m) => m.role === "tool").map((m) => m.content);
console.log(JSON.stringify({ output: result.output, tools }));
await agent.close();
`,
    );
    const run = node(["calculator.mjs"]);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ output: "420", tools: ["210", "420"] });
  });

  it("without better-sqlite3's native binding, SqliteStore names the command that builds it", () => {
    const binary = join(installed.dir, "node_modules/better-sqlite3/build/Release/better_sqlite3.node");
    renameSync(binary, `${binary}.aside`);
    try {
      const run = node([
        "--input-type=module",
        "-e",
        `import { SqliteStore } from "glassloop/store";
         try { new SqliteStore({ path: ":memory:" }); console.log("opened"); } catch (e) { console.log(e.code + ": " + e.message); }`,
      ]);
      expect(run.stdout.trim()).toBe(
        "sqlite_binding_missing: better-sqlite3 is installed without its native binding (its install script did not run). Build it with: npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3",
      );
    } finally {
      renameSync(`${binary}.aside`, binary);
    }
  });

  it("the root loads neither better-sqlite3 nor the SQLite store until a run uses the default store", () => {
    const run = node([
      "--input-type=module",
      "-e",
      `import { createRequire } from "node:module";
       import { Agent } from "glassloop";
       import { ScriptedModel } from "glassloop/testing";
       const sqlite = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes("better-sqlite3"));
       const agent = new Agent({ model: new ScriptedModel([{ text: "one" }, { text: "two" }]) });
       await agent.run("not stored");
       const before = sqlite();
       await agent.run("stored", { session: "s" });
       const messages = (await agent.store.readSession("s")).length;
       console.log(JSON.stringify({ before, after: sqlite(), messages, location: agent.store.location }));`,
    ]);
    expect(run.stderr).toBe("");
    // The bundles `import "glassloop"` loads before any call: the root's static imports, followed.
    const dist = join(installed.dir, "node_modules", "glassloop", "dist");
    const loaded = new Set(["index.mjs"]);
    for (const file of loaded) {
      const text = readFileSync(join(dist, file), "utf8");
      for (const m of text.matchAll(/^(?:import|export)\b[^;]*?from "\.\/([^"]+)"|^import "\.\/([^"]+)"/gm))
        loaded.add((m[1] ?? m[2]) as string);
    }
    // The reader followed the root into its code (one chunk since the build keeps the root's
    // modules together: tsdown.config.ts), so a SQLite store in any of it would be seen.
    expect(loaded.size).toBeGreaterThan(1);
    expect([...loaded].some((f) => /\bAgent = class\b/.test(readFileSync(join(dist, f), "utf8")))).toBe(true);
    const sqlite = [...loaded].filter((f) =>
      /\bSqliteStore\b|CREATE TABLE/.test(readFileSync(join(dist, f), "utf8")),
    );
    expect(sqlite).toEqual([]);
    expect(JSON.parse(run.stdout)).toEqual({
      before: false,
      after: true,
      messages: 2,
      location: join(installed.dir, ".glassloop", "glassloop.db"),
    });
  });

  it("every other entry in package.json's exports loads from the installed package, with the names its source exports", async () => {
    const optional = new Set(["./mcp", "./otel"]);
    const entries = Object.keys(pkg.exports)
      .filter((key) => !optional.has(key))
      .map((key) => (key === "." ? "glassloop" : `glassloop${key.slice(1)}`));
    expect(entries).toContain("glassloop/testing");
    const run = node([
      "--input-type=module",
      "-e",
      `for (const entry of ${JSON.stringify(entries)}) console.log(JSON.stringify([entry, Object.keys(await import(entry)).sort()]));`,
    ]);
    expect(run.stderr).toBe("");
    const installedNames = run.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as [string, string[]]);
    // The same entry from the sources (vitest resolves `glassloop/…` through tsconfig's paths).
    const sourceNames = await Promise.all(
      entries.map(async (entry) => [entry, Object.keys(await import(/* @vite-ignore */ entry)).sort()]),
    );
    expect(installedNames).toEqual(sourceNames);
    for (const [entry, names] of installedNames) expect(names.length, entry).toBeGreaterThan(0);
  });

  it("a .ts file type-checks under tsc --strict with the package's own declarations checked, every entry's included", () => {
    // Every entry whose declarations need no optional peer: each one's d.ts must resolve and check.
    const typedEntries = Object.keys(pkg.exports)
      .filter((key) => key !== "." && key !== "./mcp" && key !== "./otel")
      .map((key) => `glassloop${key.slice(1)}`);
    writeFileSync(
      join(installed.dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: ["node"],
          // The user's project would have @types/node installed; the repository's serves here.
          typeRoots: [join(ROOT, "node_modules", "@types")],
        },
        files: ["typed.ts"],
      }),
    );
    writeFileSync(
      join(installed.dir, "typed.ts"),
      `import { z } from "zod";
import { Agent, type RunResult, tool } from "glassloop";
import { FunctionModel, ScriptedModel } from "glassloop/testing";

const add = tool({
  name: "add",
  description: "Adds two numbers.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => a + b,
});
const typed = new Agent({
  model: new ScriptedModel([{ toolCalls: [{ name: "final_result", args: { answer: 42 } }] }]),
  tools: [add],
  output: z.object({ answer: z.number() }),
});
export async function answer(): Promise<number> {
  const result: RunResult<{ answer: number }> = await typed.run("What is 6 × 7?");
  return result.output.answer;
}
export const echo = new FunctionModel(() => ({ text: "hi" }));
// @ts-expect-error a and b are numbers, inferred from the schema
add.run({ a: "1", b: 2 }, undefined as never);
${typedEntries.map((entry, i) => `import * as entry${i} from "${entry}";`).join("\n")}
export const entries = [${typedEntries.map((_, i) => `entry${i}`).join(", ")}] as const;
`,
    );
    const tsc = node([join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"]);
    expect(tsc.stdout + tsc.stderr).toBe("");
    expect(tsc.status).toBe(0);
    // Checking every declaration (zod's, @types/node's) takes tens of seconds on a loaded 2-core machine.
  }, 180_000);

  it("glassloop/mcp and glassloop/otel name the install command when their optional peer is absent", () => {
    const probe = (specifier: string) =>
      node([
        "--input-type=module",
        "-e",
        `import(${JSON.stringify(specifier)}).then(() => console.log("loaded"), (e) => console.log(e.code + ": " + e.message))`,
      ]).stdout.trim();
    expect(probe("glassloop/mcp")).toBe(
      "missing_dependency: glassloop/mcp needs @modelcontextprotocol/sdk, which is not installed. Install it with: npm i -E @modelcontextprotocol/sdk@1.32.2",
    );
    expect(probe("glassloop/otel")).toBe(
      "missing_dependency: glassloop/otel needs @opentelemetry/api, which is not installed. Install it with: npm i @opentelemetry/api",
    );
    writeFileSync(
      join(installed.dir, "agent.mjs"),
      `import { Agent } from "glassloop";\nimport { ScriptedModel } from "glassloop/testing";\nexport default new Agent({ name: "echo", model: new ScriptedModel([{ text: "hi" }]) });\n`,
    );
    const serve = sh("npx", ["--offline", "glassloop", "mcp", "serve", "agent.mjs"], installed.dir, 60_000);
    expect(serve.status).toBe(2);
    expect(serve.stderr).toContain("Install it with: npm i -E @modelcontextprotocol/sdk@1.32.2");
  });

  it("glassloop/postgres loads without pg, and connecting names the install command", () => {
    const run = node([
      "--input-type=module",
      "-e",
      `import("glassloop/postgres")
         .then((m) => m.PostgresStore.connect({ url: "postgres://app@127.0.0.1:1/agents" }))
         .then(() => console.log("connected"), (e) => console.log(e.code + ": " + e.message))`,
    ]);
    expect(run.stdout.trim()).toBe(
      "missing_dependency: glassloop/postgres needs pg, which is not installed. Install it with: npm i -E pg@8.23.1",
    );
  });

  it("glassloop/scale loads without DBOS, and starting a worker names the install command", () => {
    const run = node([
      "--input-type=module",
      "-e",
      `import("glassloop/scale")
         .then((m) => m.startWorker({ url: "postgres://app@127.0.0.1:1/agents", module: { agents: {} } }))
         .then(() => console.log("started"), (e) => console.log(e.code + ": " + e.message))`,
    ]);
    expect(run.stdout.trim()).toBe(
      "missing_dependency: glassloop/scale needs @dbos-inc/dbos-sdk, which is not installed. Install it with: npm i -E @dbos-inc/dbos-sdk@5.3.0 pg@8.23.1",
    );
  });

  it("a local: model names the install command of the engine", () => {
    // A file that passes glassloop's GGUF check, so the next step is importing the engine.
    writeFileSync(join(installed.dir, "model.gguf"), "GGUF\u0003\u0000\u0000\u0000");
    const run = node([
      "--input-type=module",
      "-e",
      `import { Agent } from "glassloop";
       const agent = new Agent({ model: "local:./model.gguf" });
       agent.run("hi").then(() => console.log("ran"), (e) => console.log(e.message));`,
    ]);
    expect(run.stdout).toContain("npm i -E node-llama-cpp@3.21.1");
  });
});

describe("the built entries with every optional peer present (the repository's node_modules)", () => {
  it("glassloop/mcp and glassloop/otel load and work", () => {
    const script = `
      const m = await import("glassloop/mcp");
      const o = await import("glassloop/otel");
      console.log(JSON.stringify({ mcp: typeof m.McpClient.connect, otel: typeof o.otelListener() }));
    `;
    const run = node(["--input-type=module", "-e", script], ROOT);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ mcp: "function", otel: "function" });
  });
});
