/**
 * glassloop against an OpenAI-compatible server someone else wrote: `openai-mock-api` (npm, MIT),
 * an Express server that answers `/v1/chat/completions` from a YAML conversation file, JSON and
 * SSE, with tool calls and tiktoken usage. Our own wire server replays recordings; this one checks
 * that what glassloop sends is what a third party's parser accepts, and that glassloop reads what
 * a third party's writer produces, through a whole run with tools.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, resolveModel, tool } from "glassloop";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

const CLI = fileURLToPath(new URL("../../node_modules/openai-mock-api/dist/cli.js", import.meta.url));
const KEY = "test-key-third-party";

// The server matches the conversation it is given against the start of each flow, and answers
// with that flow's last assistant message; so the tool call and the final answer are two flows,
// the call's first (on a tie the first flow wins), the answer's only matching once the tool's
// result (96, computed by glassloop's tool) is in the conversation.
// The system prompt, the user's question and the model's call: both flows start with it.
const CALL = `      - role: 'system'
        matcher: 'any'
      - role: 'user'
        content: 'multiply 12 by 8'
        matcher: 'contains'
      - role: 'assistant'
        tool_calls:
          - id: 'call_mul_1'
            type: 'function'
            function:
              name: 'multiply'
              arguments: '{"a": 12, "b": 8}'
`;
const CONFIG = `apiKey: '${KEY}'
responses:
  - id: 'arithmetic-call'
    messages:
${CALL}  - id: 'arithmetic-answer'
    messages:
${CALL}      - role: 'tool'
        tool_call_id: 'call_mul_1'
        content: '96'
        matcher: 'contains'
      - role: 'assistant'
        content: '12 times 8 is 96.'
`;

let child: ChildProcess | undefined;
let baseURL = "";

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-third-party-"));
  const config = join(dir, "config.yaml");
  writeFileSync(config, CONFIG);
  const port = await freePort();
  child = spawn(
    process.execPath,
    [CLI, "--config", config, "--port", String(port), "--log-file", join(dir, "log")],
    {
      stdio: "ignore",
    },
  );
  baseURL = `http://127.0.0.1:${port}/v1`;
  // Ready when it answers; it exits on a bad config, which fails here rather than in a test.
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`openai-mock-api exited with ${child.exitCode}`);
    const ready = await fetch(`${baseURL}/models`, { headers: { authorization: `Bearer ${KEY}` } }).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error("openai-mock-api did not start within 30 s");
    await new Promise((r) => setTimeout(r, 50));
  }
}, 40_000);

afterAll(() => {
  child?.kill();
});

const multiplied: { a: number; b: number }[] = [];
const multiply = tool({
  name: "multiply",
  description: "Multiplies two numbers.",
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) => {
    multiplied.push({ a, b });
    return a * b;
  },
});

function agent() {
  // The `openai` preset, pointed at the third party's server by its documented variables.
  const model = resolveModel("openai:gpt-4o-mini", { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: baseURL });
  return new Agent({
    instructions: "Do arithmetic with the tools.",
    model,
    tools: [multiply],
    limits: { maxSteps: 4 },
  });
}

describe("an OpenAI-compatible server written by someone else (openai-mock-api)", () => {
  it("runs a tool call and its answer through glassloop's request and response, JSON", async () => {
    multiplied.length = 0;
    const result = await agent().run("Please multiply 12 by 8.");
    expect(result.output).toBe("12 times 8 is 96.");
    expect(multiplied).toEqual([{ a: 12, b: 8 }]);
    expect(result.usage.requests).toBe(2);
    // The server counts tokens with tiktoken; glassloop takes its numbers through the usage check.
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
  });

  it("streams the same run over SSE: the text arrives in pieces and adds up to the answer", async () => {
    multiplied.length = 0;
    const run = agent().stream("Please multiply 12 by 8.");
    let streamed = "";
    for await (const event of run) if (event.type === "text_delta") streamed += event.text;
    const result = await run.result;
    expect(result.output).toBe("12 times 8 is 96.");
    expect(streamed).toBe("12 times 8 is 96.");
    expect(multiplied).toEqual([{ a: 12, b: 8 }]);
  });

  it("a wrong key is the server's 401, reported as glassloop's typed provider error", async () => {
    const model = resolveModel("openai:gpt-4o-mini", { OPENAI_API_KEY: "wrong", OPENAI_BASE_URL: baseURL });
    const failed = await new Agent({ instructions: "Do arithmetic.", model, limits: { maxSteps: 1 } })
      .run("Please multiply 12 by 8.")
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failed).toMatchObject({ code: "authentication" });
  });
});
