// MCP servers are untrusted. Each test drives glassloop against a
// hostile server (fixtures/hostile-server.mjs) over stdio, as a real one would be spawned.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Agent, type Message, type ToolMessage } from "glassloop";
import { McpClient, McpConnectError } from "glassloop/mcp";
import { ScriptedModel } from "glassloop/testing";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = new URL("./fixtures/hostile-server.mjs", import.meta.url).pathname;
const DRIVER = new URL("./fixtures/pattern-driver.ts", import.meta.url).pathname;
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

const open: McpClient[] = [];
async function connect(mode: string, extra: Partial<Parameters<typeof McpClient.connect>[0]> = {}) {
  const client = await McpClient.connect({
    name: `hostile-${mode}`,
    command: process.execPath,
    args: [SERVER, mode],
    ...extra,
  } as Parameters<typeof McpClient.connect>[0]);
  open.push(client);
  return client;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
});

const results = (messages: Message[]) =>
  messages.filter((m): m is ToolMessage => m.role === "tool").map((m) => m.content);

/** Runs `node` on a script to its end, or kills it after `timeoutMs`; returns its exit code and stdout. */
function runNode(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString("utf8");
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return new Promise((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    }),
  );
}

describe("a hostile MCP server", () => {
  it("a catastrophic pattern (^(a+)+$) is checked in linear time: the bad argument is refused, the good one runs", async () => {
    // Today Ajv's backtracking RegExp takes about 2^40 steps on the first call: killed after 20 s.
    const run = await runNode(["--import", TSX, DRIVER], 20_000);
    expect(run.code).toBe(0);
    const [bad, good] = JSON.parse(run.stdout) as string[];
    expect(bad).toBe('Invalid arguments for match: s: must match pattern "^(a+)+$"');
    expect(good).toBe("echo aaaa (1)");
  });

  it("after list_changed, a cursor that repeats stops the listing; the previous tools stay, the run goes on", async () => {
    const warnings: string[] = [];
    const mcp = await connect("cursor", { onWarning: (w: string) => warnings.push(w) });
    const changed = new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (warnings.length > 0) {
          clearInterval(check);
          resolve();
        }
      }, 10);
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", args: { s: "one" } }] },
      { toolCalls: [{ name: "echo", args: { s: "two" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({ model, toolSources: [mcp] });
    const first = agent.run("Echo twice");
    await changed; // Today the listing pages "again" forever and this never resolves.
    const result = await first;
    expect(results(result.messages)).toEqual(["echo one (1)", "echo two (2)"]);
    expect(warnings[0]).toBe(
      'MCP server "hostile-cursor": kept the previous tool list: MCP server "hostile-cursor" sent a tool list glassloop refuses: the page cursor "again" repeats',
    );
    expect(mcp.tools().map((t) => t.name)).toEqual(["echo"]);
  });

  it("endless fresh cursors stop at the page cap, with a clear error", async () => {
    const error = await connect("pages").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConnectError);
    expect((error as Error).message).toBe(
      'Could not connect to MCP server "hostile-pages": MCP server "hostile-pages" sent a tool list glassloop refuses: more than 64 pages (the maxListPages option)',
    );
  });

  it("more than 512 tools is refused with a clear error", async () => {
    const error = await connect("many").catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'Could not connect to MCP server "hostile-many": MCP server "hostile-many" sent a tool list glassloop refuses: more than 512 tools (the maxTools option)',
    );
    const fewer = await connect("many", { maxTools: 600 });
    expect(fewer.tools()).toHaveLength(600);
  });

  it("a stray stdout line and a response with an unknown id are ignored and logged; the server stays usable", async () => {
    const warnings: string[] = [];
    const mcp = await connect("stray", { onWarning: (w: string) => warnings.push(w) });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "echo", args: { s: "one" } }] },
      { toolCalls: [{ name: "echo", args: { s: "two" } }] },
      { text: "done" },
    ]);
    const result = await new Agent({ model, toolSources: [mcp] }).run("Echo twice");
    // Today the first noise marks the server unavailable for good: the second call is refused.
    expect(results(result.messages)).toEqual(["echo one (1)", "echo two (2)"]);
    expect(warnings.length).toBeGreaterThanOrEqual(2);
    expect(warnings.some((w) => w.includes("unknown message ID"))).toBe(true);
  });
});
