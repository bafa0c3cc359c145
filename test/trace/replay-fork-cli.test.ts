/**
 * `glassloop trace replay --from-step n --model provider:model` through the real binary: the
 * recording answers the steps before n, a live local server (OpenAI- or Anthropic-compatible)
 * the rest. The fork must load the same provider presets `glassloop run` knows.
 */
import { join } from "node:path";
import { Agent } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { TraceWriter } from "glassloop/trace";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_INSTRUCTIONS } from "../../src/cli/setup.js";
import { calculatorTool } from "../../src/tools/builtin/calculator.js";
import { cleanEnv, runCli, tempCwd } from "../helpers/cli.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** A recording of `glassloop run --tools calculator`: a calculator call, then an answer. */
async function recording(cwd: string): Promise<string> {
  const writer = new TraceWriter({ file: join(cwd, "run.jsonl") });
  const agent = new Agent({
    name: "glassloop",
    instructions: DEFAULT_INSTRUCTIONS,
    model: new ScriptedModel([
      { toolCalls: [{ name: "calculator", args: { expression: "(200+10)*2" } }] },
      { text: "The answer is 420." },
    ]),
    tools: [calculatorTool()],
  });
  await agent.run("What is (200+10)*2?", { onEvent: writer.onEvent });
  return "run.jsonl";
}

describe("trace replay --from-step --model onto a live server", () => {
  it("forks onto openai:<model> at OPENAI_BASE_URL: step 1 from the recording, step 2 live", async () => {
    const cwd = tempCwd();
    const file = await recording(cwd);
    server.enqueue({
      json: {
        choices: [
          { index: 0, message: { role: "assistant", content: "Live says 420." }, finish_reason: "stop" },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 4 },
      },
    });
    const run = await runCli(["trace", "replay", file, "--from-step", "2", "--model", "openai:gpt-4o-mini"], {
      cwd,
      env: cleanEnv({ OPENAI_API_KEY: "sk-fork-0123456789", OPENAI_BASE_URL: `${server.url}/v1` }),
    });
    expect(run.stderr).not.toContain("Unknown model provider");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^forked run_/);
    expect(run.stdout).toContain("Live says 420.");
    expect(server.requests).toHaveLength(1);
    // The live model saw the recorded first step: the calculator call and its result.
    expect(JSON.stringify(server.requests[0]?.body)).toContain("(200+10)*2");
    expect(server.requests[0]?.body).toMatchObject({ model: "gpt-4o-mini" });
  });

  it("forks onto anthropic:<model> at ANTHROPIC_BASE_URL", async () => {
    const cwd = tempCwd();
    const file = await recording(cwd);
    server.enqueue({
      json: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        content: [{ type: "text", text: "Claude-compatible says 420." }],
        stop_reason: "end_turn",
        usage: { input_tokens: 10, output_tokens: 4 },
      },
    });
    const run = await runCli(["trace", "replay", file, "--from-step", "2", "--model", "anthropic:local"], {
      cwd,
      env: cleanEnv({ ANTHROPIC_BASE_URL: server.url }),
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Claude-compatible says 420.");
    expect(server.requests[0]?.path).toBe("/v1/messages");
  });
});
