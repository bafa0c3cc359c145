/**
 * Bytes read from elsewhere (docs/security.md): every body and file glassloop reads from a server,
 * a peer or someone else's file has a cap and a containment rule in src/core/read-caps.ts. The
 * attacks: an MCP server over streamable HTTP answering with a huge body (JSON and SSE), a huge or
 * FIFO recording, dataset or result file, and a foreign recording whose trace paths leave it.
 */
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type ToolRunOptions } from "glassloop";
import { McpClient } from "glassloop/mcp";
import { ScriptedModel } from "glassloop/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { probeOllama } from "../../src/cli/model-select.js";
import { InputTooLargeError, PathOutsideError, READ_CAPS } from "../../src/core/read-caps.js";
import { dataset, evaluate, exact, loadDataset, readResult, replayEval } from "../../src/evals/index.js";
import { listResults, resultTraceFiles } from "../../src/evals/result-file.js";
import { ReplayModel } from "../../src/providers/replay.js";
import { readTraceEvents } from "../../src/trace/reader.js";

const MiB = 1024 * 1024;

// ---- A hostile MCP server over streamable HTTP, scripted on 127.0.0.1 ----

interface Hostile {
  url: string;
  /** Bytes the server managed to write of each huge answer before the client hung up. */
  written: number[];
  close(): Promise<void>;
}

/** Answers `initialize` and `tools/list` honestly; `tools/call` of `huge` streams `size` bytes (JSON or SSE). */
async function hostileMcp(size: number): Promise<Hostile> {
  const written: number[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const message = JSON.parse(raw) as { id?: number; method: string; params?: Record<string, unknown> };
    const answer = (result: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    };
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (message.method === "initialize") {
      answer({
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "hostile", version: "1" },
      });
      return;
    }
    if (message.method === "tools/list") {
      const schema = { type: "object", properties: {} };
      answer({
        tools: [
          { name: "huge", description: "A JSON answer", inputSchema: schema },
          { name: "huge_sse", description: "An SSE answer", inputSchema: schema },
          { name: "small", description: "A small answer", inputSchema: schema },
        ],
      });
      return;
    }
    const tool = (message.params as { name?: string }).name;
    if (tool === "small") {
      answer({ content: [{ type: "text", text: "fine" }] });
      return;
    }
    // One JSON-RPC message of `size` bytes of text, streamed in 64 KiB chunks, honouring backpressure.
    const sse = tool === "huge_sse";
    res.writeHead(200, { "content-type": sse ? "text/event-stream" : "application/json" });
    const head = `${sse ? "event: message\ndata: " : ""}{"jsonrpc":"2.0","id":${message.id},"result":{"content":[{"type":"text","text":"`;
    let sent = 0;
    res.write(head);
    const chunk = "A".repeat(64 * 1024);
    let closed = false;
    res.on("close", () => {
      closed = true;
    });
    while (sent < size && !closed) {
      sent += chunk.length;
      if (!res.write(chunk))
        await new Promise((resolve) => res.once("drain", resolve).once("close", resolve));
    }
    written.push(sent);
    if (!closed) res.end(`"}]}}${sse ? "\n\n" : ""}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    written,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("MCP over streamable HTTP: one answer is held to the message cap", () => {
  let hostile: Hostile;
  let mcp: McpClient;
  // The cap is configurable; here 1 MiB against a server that would send 24 MiB (250 MB in the wild).
  const cap = MiB;
  const size = 24 * MiB;

  beforeAll(async () => {
    hostile = await hostileMcp(size);
    mcp = await McpClient.connect({
      name: "hostile",
      url: hostile.url,
      maxMessageBytes: cap,
      onWarning: () => {},
    });
  });
  afterAll(async () => {
    await mcp?.close();
    await hostile?.close();
  });

  const call = async (name: string) => {
    const tool = mcp.tools().find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    const options = { signal: AbortSignal.timeout(20_000) } as unknown as ToolRunOptions<unknown>;
    const run = tool.run as (args: unknown, options: ToolRunOptions<unknown>) => unknown;
    return Promise.resolve(run({}, options)).then(
      (value) => ({ value, error: undefined }),
      (error: unknown) => ({ value: undefined, error }),
    );
  };

  it("a JSON answer past the cap fails the call with an InputTooLargeError, and the rest is never read", async () => {
    const { error } = await call("huge");
    expect(error).toMatchObject({ code: "tool_error" });
    expect((error as Error).message).toMatch(/larger than 1048576 bytes \(the mcpMessage cap\)/);
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(InputTooLargeError);
    expect(cause).toMatchObject({ code: "input_too_large", kind: "mcpMessage", limitBytes: cap });
    // The client hung up: the server got nowhere near the 24 MiB it meant to send.
    await expect.poll(() => hostile.written.length).toBe(1);
    expect(hostile.written[0]).toBeLessThan(size / 2);
  });

  it("an SSE event past the cap fails the call at once (not at its timeout), with the same typed cause", async () => {
    const { error } = await call("huge_sse");
    expect((error as Error).message).toMatch(/larger than 1048576 bytes \(the mcpMessage cap\)/);
    expect((error as Error).cause).toMatchObject({
      code: "input_too_large",
      kind: "mcpMessage",
      limitBytes: cap,
    });
    await expect.poll(() => hostile.written.length).toBe(2);
    expect(hostile.written[1]).toBeLessThan(size / 2);
  });

  it("the server stays usable, and the model reads the cut-off as a tool error it can act on", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "huge", args: {} }] },
      { toolCalls: [{ name: "small", args: {} }] },
      { text: "done" },
    ]);
    const result = await new Agent({ model, toolSources: [mcp] }).run("try both");
    const results = result.messages.flatMap((m) => (m.role === "tool" ? [m.content] : []));
    expect(results[0]).toMatch(/MCP server "hostile" failed on huge: .*larger than 1048576 bytes/);
    expect(results[1]).toBe("fine");
  });
});

describe("a local model server is still a server", () => {
  it("an Ollama whose /api/tags answers 24 MiB is read to the provider body cap only, and no model list comes of it", async () => {
    let written = 0;
    const server = createServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"models":[{"name":"');
      const chunk = "m".repeat(64 * 1024);
      let closed = false;
      res.on("close", () => {
        closed = true;
      });
      while (written < 24 * MiB && !closed) {
        written += chunk.length;
        if (!res.write(chunk))
          await new Promise((resolve) => res.once("drain", resolve).once("close", resolve));
      }
      if (!closed) res.end('"}]}');
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect(await probeOllama({ OLLAMA_HOST: host }, 20_000)).toBeUndefined();
      expect(written).toBeLessThan(20 * MiB);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

// ---- Files from elsewhere: recordings, datasets, result files ----

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-caps-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A sparse file just over `bytes`: its size says huge, it takes no disk, and nothing may read it. */
function hugeFile(path: string, bytes: number): string {
  writeFileSync(path, "");
  truncateSync(path, bytes + 1);
  return path;
}

describe("files from elsewhere are refused past their cap before a byte is read", () => {
  it("a recording (trace file) over the recording cap", () => {
    const file = hugeFile(join(tempDir(), "big.jsonl"), READ_CAPS.recording);
    expect(() => readTraceEvents(file)).toThrow(
      /Refused trace .*big\.jsonl: larger than 268435456 bytes \(the recording cap\)/,
    );
    expect(() => ReplayModel.fromFile(file)).toThrow(/Replay: cannot read .*larger than 268435456 bytes/);
  });

  it("a dataset over the dataset cap, and a dataset that is a FIFO (it would block forever)", () => {
    const dir = tempDir();
    const file = hugeFile(join(dir, "cases.jsonl"), READ_CAPS.dataset);
    expect(() => loadDataset(file)).toThrow(/larger than 67108864 bytes \(the dataset cap\)/);
    const fifo = join(dir, "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    expect(() => loadDataset(fifo)).toThrow(/not a regular file/);
  });

  it("a result.json over the result cap is refused, and the viewer's list skips it with a note", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "big"));
    const file = hugeFile(join(dir, "big", "result.json"), READ_CAPS.evalResult);
    expect(() => readResult(file)).toThrow(/larger than 67108864 bytes \(the evalResult cap\)/);
    const listed = listResults(dir);
    expect(listed.evals).toEqual([]);
    expect(listed.skipped[0]?.reason).toMatch(/larger than 67108864 bytes/);
  });
});

// ---- A foreign recording whose trace paths leave it ----

describe("eval --replay of a foreign recording stays inside the recording", () => {
  const shout = {
    name: "shout",
    agent: ({ model }: { model?: import("glassloop").Model } = {}) =>
      new Agent({ instructions: "Shout it back.", model: model ?? new ScriptedModel([{ text: "HI" }]) }),
    dataset: dataset("shout", [{ id: "a", input: "hi", expected: "HI" }]),
    scorers: [exact()],
  };

  async function recording(): Promise<{ dir: string; secret: string }> {
    const root = tempDir();
    const dir = join(root, "recording");
    await evaluate({ ...shout, outDir: dir });
    // Elsewhere on the disk: a trace whose recorded answer is someone's secret.
    const secret = join(root, "private", "secret.jsonl");
    mkdirSync(join(root, "private"));
    const trial = (readResult(dir).result.cases[0]?.trials[0]?.trace ?? "") as string;
    writeFileSync(secret, readFileSync(join(dir, trial), "utf8").replaceAll("HI", "SECRET-DIARY-ENTRY"));
    return { dir, secret };
  }

  function pointTraceAt(dir: string, path: string): void {
    const file = join(dir, "result.json");
    const result = JSON.parse(readFileSync(file, "utf8")) as { cases: { trials: { trace?: string }[] }[] };
    for (const c of result.cases) for (const t of c.trials) t.trace = path;
    writeFileSync(file, JSON.stringify(result));
  }

  it("a `../` trace path is refused with a PathOutsideError, and nothing of the file is read or shown", async () => {
    const { dir } = await recording();
    pointTraceAt(dir, "../private/secret.jsonl");
    const error = await replayEval(shout, dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PathOutsideError);
    expect(error).toMatchObject({ code: "path_outside" });
    expect((error as Error).message).toMatch(
      /a trace path in the recording "\.\.\/private\/secret\.jsonl" points outside/,
    );
    expect((error as Error).message).not.toContain("SECRET-DIARY-ENTRY");
  });

  it("an absolute path, and a link inside the recording that leads out, are refused the same way", async () => {
    const { dir, secret } = await recording();
    pointTraceAt(dir, secret);
    await expect(replayEval(shout, dir)).rejects.toMatchObject({ code: "path_outside" });
    symlinkSync(secret, join(dir, "traces", "link.jsonl"));
    pointTraceAt(dir, "traces/link.jsonl");
    await expect(replayEval(shout, dir)).rejects.toMatchObject({ code: "path_outside" });
    // The viewer's list of an eval's trace files leaves it out too.
    expect(resultTraceFiles(listResults(dir).loaded)).toEqual([]);
  });

  it("the recording's own traces still replay", async () => {
    const { dir } = await recording();
    const replayed = await replayEval(shout, dir);
    expect(replayed.summary.trials).toBe(1);
  });
});

// ---- The chokepoint: every reader of bytes from elsewhere goes through read-caps.ts ----

const SRC = join(import.meta.dirname, "../../src");
const READER =
  /readFileSync\(|readFile\(|createReadStream\(|\.json\(\)|\.text\(\)|\.arrayBuffer\(\)|getReader\(\)|StreamableHTTPClientTransport\(|\.on\("data"|for await \(const chunk/;
const USES_CAPS =
  /from "(\.\.?\/)+(core\/read-caps|mcp\/capped-fetch|capped-fetch)\.js"|from "\.\/read-caps\.js"/;

/** Readers that read only glassloop's or the user's own bytes, or count bytes against READ_CAPS elsewhere. */
const OWN_OR_COUNTED: Record<string, string> = {
  "models/http/node-exchange.ts":
    "the node:http transport: bytes counted against READ_CAPS.providerStream/providerBody by transport.ts and readCapped (reply.ts)",
  "models/http/reply.ts":
    "a provider reply's chunks, counted against READ_CAPS by transport.ts and readCapped",
  "serve/page-routes.ts": "glassloop's own built chat page",
  "a2a/server/task-stream.ts":
    "glassloop's own outgoing event stream (a peer's request body is read by serve's readJsonBody, under maxBodyBytes)",
  "cli/config.ts": "the user's own config file",
  "providers/bedrock/credentials.ts": "the user's own AWS credentials and config files",
  "cli/cli.ts": "glassloop's own package.json",
  "core/package-root.ts": "glassloop's own package.json",
  "cli/user-module.ts": "the package.json next to the user's own module",
  "cli/commands/run.ts": "the user's own stdin",
  "tools/builtin/shell.ts": "the output of a command the user approved, cut at maxOutputChars",
};

function readersWithoutCaps(files: readonly { file: string; text: string }[]): string[] {
  return files
    .filter(
      ({ file, text }) =>
        file !== "core/read-caps.ts" &&
        READER.test(text) &&
        !USES_CAPS.test(text) &&
        OWN_OR_COUNTED[file] === undefined,
    )
    .map(({ file }) => file);
}

function sourceFiles(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(path, name);
      else if (/\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name))
        out.push({ file: name, text: readFileSync(path, "utf8") });
    }
  };
  walk(SRC, "");
  return out;
}

describe("read-caps.ts is the one way to read bytes from elsewhere", () => {
  it("every source that reads a body, a stream or a file imports the caps (or reads only its own bytes, said why)", () => {
    const files = sourceFiles();
    const readers = files.filter(({ text }) => READER.test(text)).map(({ file }) => file);
    for (const known of [
      "trace/reader.ts",
      "evals/dataset-file.ts",
      "evals/result-file.ts",
      "mcp/server-config.ts",
    ])
      expect(files.map((f) => f.file)).toContain(known);
    expect(files.find((f) => f.file === "cli/model-select.ts")?.text).toMatch(USES_CAPS);
    expect(readersWithoutCaps(files)).toEqual([]);
    // Each exception still reads something (a stale entry would hide a new reader by the same name).
    for (const file of Object.keys(OWN_OR_COUNTED)) expect(readers, file).toContain(file);
  });

  it("a reader added tomorrow is caught unless it goes through the caps", () => {
    const fresh = [
      { file: "a2a/peer-card.ts", text: "const card = await response.json();" },
      { file: "evals/new-format.ts", text: 'const text = readFileSync(path, "utf8");' },
    ];
    expect(readersWithoutCaps(fresh)).toEqual(["a2a/peer-card.ts", "evals/new-format.ts"]);
    const capped = [
      {
        file: "evals/new-format.ts",
        text: 'import { readFileCapped } from "../core/read-caps.js";\nconst text = readFileCapped(path, "dataset");',
      },
    ];
    expect(readersWithoutCaps(capped)).toEqual([]);
  });
});
