/**
 * Every code block in README.md and docs/*.md is tested (Pydantic AI's standard): TypeScript
 * blocks are type-checked as modules and executed, against the docs' policy model
 * (test/docs/brain.ts) directly or through the OpenAI wire on 127.0.0.1; JSON blocks must parse;
 * shell blocks either run, every line in a fresh copy of the repository as a newcomer's clone
 * (`glassloop …` lines through the real CLI, any other through `sh`, against the same server), or
 * say on their first line why not (`# not run: …`). A block's first line may declare what it
 * needs (`// needs: agent, model, type Db`, names from test/docs/fixtures.ts), that it can only be
 * type-checked (`// not run: why`), or that it is an excerpt (`// not checked: why`); a repo path
 * alone (`// src/trace/cli.ts`) says where its relative imports resolve.
 */
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Asked, decide } from "./docs/brain.js";
import { cleanEnv, runCli } from "./helpers/cli.js";
import { freshCopy } from "./helpers/fresh-copy.js";
import { type CodeBlock, codeBlocks, docFiles } from "./helpers/markdown-blocks.js";
import { chatJson, chatSse } from "./helpers/openai-replies.js";
import { ROOT } from "./helpers/packed.js";
import { type RecordedRequest, startWireServer, type WireServer } from "./helpers/wire-server.js";

const OUT = join(ROOT, "test-artifacts", "docs-examples");
const FIXTURES = join(ROOT, "test", "docs", "fixtures.ts");
const blocks = docFiles(ROOT).flatMap((file) => codeBlocks(ROOT, file));
const tsBlocks = blocks.filter((b) => b.lang === "ts" && b.mode.kind !== "skip");

/** The module a TypeScript block becomes: its `needs` imported from the fixtures, relative imports re-rooted. */
function moduleOf(block: CodeBlock): { file: string; source: string } {
  const file = join(OUT, `${block.file.replace(/[/.]/g, "_")}_${block.line}.ts`);
  const specifier = (target: string) => {
    const path = relative(dirname(file), target).replace(/\.ts$/, ".js");
    return path.startsWith(".") ? path : `./${path}`;
  };
  let code = block.code;
  if (block.location) {
    const base = dirname(join(ROOT, block.location));
    code = code.replace(/(from\s+|import\()"(\.\.?\/[^"]+)"/g, (_, head: string, path: string) => {
      return `${head}"${specifier(resolve(base, path).replace(/\.js$/, ".ts"))}"`;
    });
  }
  const prelude =
    block.needs.length > 0 ? `import { ${block.needs.join(", ")} } from "${specifier(FIXTURES)}";\n` : "\n";
  return { file, source: `// ${block.where}\n${prelude}${code}\nexport {};\n` };
}

/** Type-checks every TypeScript block in one program; diagnostics by generated file. */
function typeCheck(files: string[]): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, "tsconfig.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("tsconfig.json did not parse");
  const program = ts.createProgram(files, { ...config.options, noEmit: true });
  const byFile = new Map<string, string[]>(files.map((f) => [resolve(f), []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const name = d.file ? resolve(d.file.fileName) : "";
    const list = byFile.get(name);
    if (!list || !d.file) continue;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start ?? 0);
    // Line 1 is the banner and the needs import, so the block's own line numbers follow.
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    list.push(`line ${line - 1}: ${text}`);
  }
  return byFile;
}

/** What the policy reads from an OpenAI Chat Completions request body. */
function askedOfWire(request: RecordedRequest): Asked {
  const body = request.body as {
    messages: { role: string; content?: string | null }[];
    tools?: { function: { name: string; parameters: Record<string, unknown> } }[];
  };
  const lastUser = body.messages.findLastIndex((m) => m.role === "user");
  return {
    user: body.messages[lastUser]?.content ?? "",
    tools: (body.tools ?? []).map((t) => ({ name: t.function.name, parameters: t.function.parameters })),
    results: body.messages.slice(lastUser + 1).flatMap((m) => (m.role === "tool" ? [m.content ?? ""] : [])),
  };
}

let server: WireServer;
let cwd: string;
/** Where the shell blocks run: a fresh copy of the repository, as a clone's README commands do. */
let clone: string;
let checked: Map<string, string[]>;
const savedEnv = { ...process.env };
const savedCwd = process.cwd();

beforeAll(async () => {
  server = await startWireServer();
  let ids = 0;
  server.handler = (request, index) => {
    if (!request.path.endsWith("/chat/completions")) return { status: 404, json: { error: "not served" } };
    const move = decide(askedOfWire(request));
    const reply =
      "call" in move
        ? {
            toolCalls: [
              { id: `call_${++ids}`, name: move.call.name, arguments: JSON.stringify(move.call.args) },
            ],
          }
        : { text: move.text };
    const usage = { prompt_tokens: 20, completion_tokens: 5 };
    return (request.body as { stream?: boolean }).stream
      ? chatSse({ ...reply, usage }, index)
      : chatJson({ ...reply, usage }, index);
  };
  cwd = mkdtempSync(join(tmpdir(), "glassloop-docs-"));
  // A recorded run for the replay examples, under the name the docs use.
  copyFileSync(join(ROOT, "recordings", "calculator.jsonl"), join(cwd, "run.jsonl"));
  clone = freshCopy("glassloop-docs-clone-");
  copyFileSync(join(ROOT, "recordings", "calculator.jsonl"), join(clone, "run.jsonl"));
  Object.assign(process.env, docsEnv());
  process.chdir(cwd);
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const modules = tsBlocks.map((block) => ({ block, ...moduleOf(block) }));
  for (const m of modules) writeFileSync(m.file, m.source);
  checked = typeCheck(modules.map((m) => m.file));
}, 180_000);

afterAll(async () => {
  process.chdir(savedCwd);
  for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
  Object.assign(process.env, savedEnv);
  await server?.close();
  if (cwd) rmSync(cwd, { recursive: true, force: true });
  if (clone) rmSync(clone, { recursive: true, force: true });
});

/** Dummy keys and loopback base URLs for every provider a block may name; no request leaves 127.0.0.1. */
function docsEnv(): Record<string, string> {
  return {
    OPENAI_API_KEY: "sk-docs-example",
    OPENAI_BASE_URL: `${server.url}/v1`,
    ANTHROPIC_API_KEY: "sk-ant-docs-example",
    ANTHROPIC_BASE_URL: server.url,
    GROQ_API_KEY: "gsk-docs-example",
    OPENROUTER_API_KEY: "sk-or-docs-example",
    DEEPSEEK_API_KEY: "sk-docs-example",
    GEMINI_API_KEY: "gemini-docs-example",
    GOOGLE_GEMINI_BASE_URL: server.url,
    OLLAMA_HOST: "127.0.0.1:9",
    GLASSLOOP_DB: join(cwd, "docs.db"),
  };
}

describe("the docs' code blocks", () => {
  it("are all of a known kind, and few are marked as not runnable", () => {
    const unknown = blocks.filter((b) => !["ts", "sh", "json", "text"].includes(b.lang)).map((b) => b.where);
    expect(unknown, "give every fence a language: ts, sh, json or text").toEqual([]);
    const code = blocks.filter((b) => b.lang === "ts" || b.lang === "sh");
    const marked = code.filter((b) => b.mode.kind !== "run");
    expect(marked.length).toBeLessThanOrEqual(Math.ceil(code.length / 3));
  });

  for (const block of blocks.filter((b) => b.lang === "json")) {
    it(`${block.where} is valid JSON`, () => {
      expect(() => JSON.parse(block.code)).not.toThrow();
    });
  }
});

for (const file of docFiles(ROOT)) {
  const inFile = tsBlocks.filter((b) => b.file === file);
  if (inFile.length === 0) continue;
  describe(file, () => {
    // In order: a later block may continue an earlier one's state (a session, a store).
    for (const block of inFile) {
      const verb =
        block.mode.kind === "run" ? "type-checks and runs" : `type-checks (not run: ${block.mode.reason})`;
      it(`${block.where} ${verb}`, async () => {
        const { file: generated } = moduleOf(block);
        expect(checked.get(resolve(generated)), block.code).toEqual([]);
        if (block.mode.kind !== "run") return;
        const printed: unknown[] = [];
        const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
          printed.push(args.length === 1 ? args[0] : args);
        });
        try {
          await import(pathToFileURL(generated).href);
        } finally {
          log.mockRestore();
        }
        // `console.log(x); // "420"`: the comment is what it prints.
        for (const [, expected] of block.code.matchAll(/console\.log\([^\n]*\);\s*\/\/\s*("[^"]*")\s*$/gm)) {
          expect(printed).toContainEqual(JSON.parse(expected!));
        }
        expect(server.unexpected).toBe(0);
      });
    }
  });
}

describe("shell blocks", () => {
  for (const block of blocks.filter((b) => b.lang === "sh")) {
    if (block.mode.kind !== "run") continue;
    it(`${block.where} runs in a fresh copy of the repository: every command exits 0`, async () => {
      const commands = block.code
        .split("\n")
        .map((line) => line.replace(/\s+#.*$/, "").trim())
        .filter((line) => line && !line.startsWith("#"));
      // A synopsis line with a placeholder (`trace show <runId|file>`) is not a command.
      const runnable = commands.filter((command) => !/<[^>]+>/.test(command));
      expect(runnable.length).toBeGreaterThan(0);
      const env = cleanEnv(docsEnv());
      for (const line of runnable) {
        // `echo "text" | glassloop …`: the text is the command's stdin.
        const piped = /^echo\s+"([^"]*)"\s*\|\s*(.*)$/.exec(line);
        const command = piped ? piped[2]! : line;
        const args = cliArgs(command);
        const run = args
          ? await runCli(args, {
              cwd: clone,
              env,
              timeoutMs: 60_000,
              ...(piped && { input: `${piped[1]}\n` }),
            })
          : await shell(line, clone, env);
        expect(run.code, `${line}\n${run.stdout}${run.stderr}`).toBe(0);
      }
    }, 180_000);
  }
});

/** Any other command line, through `sh` in `cwd`, with the repository's tools (npm, npx, tsx) on PATH. */
function shell(
  line: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const path = `${join(cwd, "node_modules", ".bin")}:${env.PATH ?? ""}`;
  return new Promise((done) => {
    const child = spawn("sh", ["-c", line], { cwd, env: { ...env, PATH: path }, timeout: 60_000 });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
    });
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

/** The arguments of `glassloop …`, `npx glassloop …` or `npm run glassloop -- …`; null for any other command. */
function cliArgs(command: string): string[] | null {
  const words = [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");
  const prefixes = [["glassloop"], ["npx", "glassloop"], ["npm", "run", "glassloop", "--"]];
  for (const prefix of prefixes) {
    if (prefix.every((word, i) => words[i] === word)) return words.slice(prefix.length);
  }
  return null;
}
