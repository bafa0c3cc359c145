import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, cliArgv, runCli, tempCwd, useWireServer } from "../helpers/cli.js";
import { type ChatReply, chatSse, sentBody } from "../helpers/openai-replies.js";
import { spawnPty } from "../helpers/pty.js";

const KEY = "sk-test-very-secret-0123456789";
const wire = useWireServer(KEY);

const env = wire.env;
const TASK = "Add 200 and 10, then multiply the result by 2.";

/** The calculator run: the model asks the calculator, then answers with its result. */
function calculatorScript(final = "The result is 420."): ChatReply[] {
  return [
    {
      toolCalls: [{ id: "call_calc", name: "calculator", arguments: '{"expression":"(200 + 10) * 2"}' }],
      usage: { prompt_tokens: 120, completion_tokens: 20 },
    },
    { text: final, usage: { prompt_tokens: 160, completion_tokens: 8 } },
  ];
}
const enqueue = (replies: ChatReply[]) => wire.server.enqueue(...replies.map((r, i) => chatSse(r, i)));

describe("glassloop run, end to end against a local OpenAI-compatible server", () => {
  it("runs the calculator task: the tool computes 420, the answer streams to stdout, exit 0", async () => {
    enqueue(calculatorScript());
    const run = await runCli(["run", "--tools", "calculator", TASK], { cwd: tempCwd(), env: env() });
    expect(run.stderr).toContain('→ calculator {"expression":"(200 + 10) * 2"}');
    expect(run.stderr).toMatch(/← 420 \(\d+ ms\)/);
    expect(run.stdout).toBe("The result is 420.\n");
    expect(run.stderr).toMatch(
      /✓ 2 requests · 308 tokens \(280 in, 28 out\) · 1 tool call · \$0\.0000\d+ · /,
    );
    expect(run.code).toBe(0);
    // The tool's real result went back to the model with its call id.
    const second = sentBody(wire.server.requests, 1);
    expect(second.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_calc", content: "420" });
    // Plain output when not on a terminal: no color, no spinner.
    expect(run.stdout + run.stderr).not.toContain(`${String.fromCharCode(27)}[`);
  });

  it("--json prints exactly one JSON object on stdout", async () => {
    enqueue(calculatorScript());
    const run = await runCli(["run", "--json", "--tools", "calculator", TASK], {
      cwd: tempCwd(),
      env: env(),
    });
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toHaveLength(1);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      status: "ok",
      output: "The result is 420.",
      finishedBy: "text",
      model: "openai:gpt-4o-mini",
      usage: { requests: 2, inputTokens: 280, outputTokens: 28, toolCalls: 1 },
    });
    expect(result.runId).toMatch(/^run_/);
    expect(result.messages.filter((m: { role: string }) => m.role === "tool")).toEqual([
      { role: "tool", toolCallId: "call_calc", toolName: "calculator", content: "420" },
    ]);
    expect(run.stderr).toBe("");
  });

  it("--show-prompt prints each request body exactly as the server received it", async () => {
    enqueue(calculatorScript());
    const run = await runCli(["run", "--show-prompt", "--tools", "calculator", TASK], {
      cwd: tempCwd(),
      env: env(),
    });
    expect(run.code).toBe(0);
    expect(wire.server.requests).toHaveLength(2);
    for (const [i, request] of wire.server.requests.entries()) {
      expect(run.stderr).toContain(
        `── request ${i + 1} (step ${i + 1}) → ${wire.server.url}/v1/chat/completions\n${request.raw}\n`,
      );
    }
    expect(run.stderr).not.toContain(KEY);
  });

  it("--trace writes every event of the run as JSONL, without the key", async () => {
    enqueue(calculatorScript());
    const cwd = tempCwd();
    const run = await runCli(["run", "--trace", "run.jsonl", "--tools", "calculator", TASK], {
      cwd,
      env: env(),
    });
    expect(run.code).toBe(0);
    const text = readFileSync(join(cwd, "run.jsonl"), "utf8");
    const types = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line).type as string);
    expect(types[0]).toBe("trace_header");
    expect(types).toEqual(
      expect.arrayContaining([
        "run_start",
        "model_request",
        "model_response",
        "tool_call",
        "tool_result",
        "run_end",
      ]),
    );
    expect(types.at(-1)).toBe("run_end");
    expect(text).not.toContain(KEY);
    expect(run.stderr).toContain(`trace: ${join(cwd, "run.jsonl")}`);
  });

  it("traces every run to .glassloop/traces by default, and --no-trace writes none", async () => {
    enqueue(calculatorScript());
    const cwd = tempCwd();
    const run = await runCli(["run", "--json", "--tools", "calculator", TASK], { cwd, env: env() });
    expect(run.code).toBe(0);
    const { runId, trace } = JSON.parse(run.stdout) as { runId: string; trace: string };
    expect(trace).toBe(join(cwd, ".glassloop", "traces", `${runId}.jsonl`));
    const text = readFileSync(trace, "utf8");
    expect(text).toContain('"type":"run_end"');
    expect(text).not.toContain(KEY);

    enqueue(calculatorScript());
    const quiet = tempCwd();
    const untraced = await runCli(["run", "--json", "--no-trace", "--tools", "calculator", TASK], {
      cwd: quiet,
      env: env(),
    });
    expect(untraced.code).toBe(0);
    expect(JSON.parse(untraced.stdout).trace).toBeUndefined();
    expect(existsSync(join(quiet, ".glassloop", "traces"))).toBe(false);
  });

  it("takes the task from stdin", async () => {
    enqueue([{ text: "Hi!" }]);
    const run = await runCli(["run"], { cwd: tempCwd(), env: env(), input: "Say hi\n" });
    expect(run.stdout).toBe("Hi!\n");
    expect(sentBody(wire.server.requests, 0).messages.at(-1)?.content).toBe("Say hi");
  });

  it("a terminal budget ends with exit 1 and says which budget; the partial usage is shown", async () => {
    enqueue(calculatorScript());
    const run = await runCli(["run", "--max-steps", "1", "--tools", "calculator", TASK], {
      cwd: tempCwd(),
      env: env(),
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("✗ run failed: Budget exceeded: maxSteps (used 1 of 1)");
    expect(run.stderr).toMatch(/1 request · 140 tokens/);
  });

  it("a provider failure ends with exit 1, never printing the key the provider echoed", async () => {
    wire.server.enqueue({
      status: 401,
      json: { error: { message: `Incorrect API key provided: ${KEY}`, type: "invalid_request_error" } },
    });
    const run = await runCli(["run", "hello"], { cwd: tempCwd(), env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/✗ run failed: .*(auth|401)/i);
    expect(run.stdout + run.stderr).not.toContain(KEY);
    wire.server.enqueue({ status: 401, json: { error: { message: `bad key ${KEY}` } } });
    const json = await runCli(["run", "--json", "hello"], { cwd: tempCwd(), env: env() });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: "failed", error: { code: expect.any(String) } });
    expect(json.stdout).not.toContain(KEY);
  });

  it.each([
    [["run"], /no task given/],
    [["run", "--frobnicate", "x"], /Unknown option '--frobnicate'/],
    [
      ["run", "--tools", "calculator,teleporter", "x"],
      /unknown tool "teleporter". Built-in tools: calculator, clock, http_get, files, shell/,
    ],
    [["run", "--max-steps", "zero", "x"], /--max-steps must be a whole number above 0, got "zero"/],
    [["run", "--model", "nonsense", "x"], /must look like "provider:model"/],
    [["run", "--model", "martian:x", "x"], /Unknown model provider "martian"/],
    [
      ["run", "--model", "openai:my-finetune", "--max-cost", "0.5", "x"],
      /maxCostUsd is set but model "openai:my-finetune" has no known price/,
    ],
    [["run", "--resume", "run_x", "a task"], /--resume continues a stored run/],
    [["frobnicate"], /unknown command "frobnicate"/],
  ])("bad usage exits 2: %j", async (args, message) => {
    const run = await runCli(args, { cwd: tempCwd(), env: env() });
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(2);
    expect(wire.server.requests).toHaveLength(0);
  });

  it("--json reports bad usage as one JSON object too, with exit 2", async () => {
    const run = await runCli(["run", "--json", "--tools", "teleporter", "x"], { cwd: tempCwd(), env: env() });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      status: "error",
      error: { code: "usage", message: expect.stringContaining('unknown tool "teleporter"') },
    });
  });

  it("a broken glassloop.config.json is a configuration error naming the file and the key", async () => {
    const cwd = tempCwd();
    writeFileSync(
      join(cwd, "glassloop.config.json"),
      JSON.stringify({ model: "openai:gpt-4o-mini", maxStep: 3 }),
    );
    const run = await runCli(["run", "x"], { cwd, env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `${join(cwd, "glassloop.config.json")}: (root): Unrecognized key: "maxStep"`,
    );
    writeFileSync(join(cwd, "glassloop.config.json"), "{ not json");
    const broken = await runCli(["run", "x"], { cwd, env: env() });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/glassloop\.config\.json is not valid JSON/);
  });

  it("with no model anywhere, says exactly what to do and exits 2 without answering", async () => {
    const run = await runCli(["run", "What is 2+2?"], { cwd: tempCwd(), env: cleanEnv() });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    for (const hint of [
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "--model provider:model",
      "GLASSLOOP_MODEL",
      "ollama serve",
      "local:/path/to/model.gguf",
      "glassloop demo",
    ]) {
      expect(run.stderr).toContain(hint);
    }
  });
});

describe("glassloop run on a terminal", () => {
  // Exit 130, not 1 (the shell's convention for an interrupted program).
  it("Ctrl-C stops the run promptly with exit 130", async () => {
    wire.server.enqueue(chatSse({ text: "too late", delayMs: 20_000 }));
    const pty = spawnPty(cliArgv("run", "Tell me a long story"), { cwd: tempCwd(), env: env() });
    while (wire.server.requests.length < 1) await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    pty.write("\u0003");
    expect(await pty.exited).toBe(130);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(pty.output).toContain("✗ run failed: The run was aborted");
    expect(pty.output).not.toContain("too late");
  });
});

describe("glassloop run: sessions and resume", () => {
  it("--session continues the conversation kept under that id", async () => {
    const cwd = tempCwd();
    enqueue([{ text: "Nice to meet you, Ada." }]);
    const first = await runCli(["run", "--session", "s1", "My name is Ada."], { cwd, env: env() });
    expect(first.code).toBe(0);
    enqueue([{ text: "Your name is Ada." }]);
    const second = await runCli(["run", "--session", "s1", "What is my name?"], { cwd, env: env() });
    expect(second.stdout).toBe("Your name is Ada.\n");
    const messages = sentBody(wire.server.requests, 1).messages;
    expect(messages.map((m) => `${m.role}: ${m.content}`)).toEqual([
      expect.stringMatching(/^system: /),
      "user: My name is Ada.",
      "assistant: Nice to meet you, Ada.",
      "user: What is my name?",
    ]);
  });

  it("--session id --continue answers a question whose answer failed, without asking it again", async () => {
    const cwd = tempCwd();
    wire.server.enqueue({
      status: 400,
      json: { error: { message: "bad gateway config", type: "invalid_request_error" } },
    });
    const failed = await runCli(["run", "--session", "s2", "What is 2 + 3?"], { cwd, env: env() });
    expect(failed.code).toBe(1);
    enqueue([{ text: "5" }]);
    const continued = await runCli(["run", "--session", "s2", "--continue"], { cwd, env: env() });
    expect(continued.code, continued.stderr).toBe(0);
    expect(continued.stdout).toBe("5\n");
    const sent = sentBody(wire.server.requests, 1).messages;
    expect(sent.map((m) => `${m.role}: ${m.content}`)).toEqual([
      expect.stringMatching(/^system: /),
      "user: What is 2 + 3?",
    ]);
    // Without a session, or with a task beside it, --continue is a usage error that says what to give.
    const alone = await runCli(["run", "--continue"], { cwd, env: env() });
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain(
      "--continue answers a stored conversation where it stands: give --session id",
    );
    const both = await runCli(["run", "--session", "s2", "--continue", "more"], { cwd, env: env() });
    expect(both.code).toBe(2);
    // A conversation that ends with the answer has nothing to continue: exit 2, nothing sent.
    const before = wire.server.requests.length;
    const done = await runCli(["run", "--session", "s2", "--continue"], { cwd, env: env() });
    expect(done.code).toBe(2);
    expect(done.stderr).toContain("nothing to continue");
    expect(wire.server.requests.length).toBe(before);
  });

  it("--resume continues a run that was killed, without running a finished tool again", async () => {
    const cwd = tempCwd();
    wire.server.enqueue(
      chatSse({
        toolCalls: [{ id: "call_w", name: "write_file", arguments: '{"path":"log.txt","content":"once"}' }],
      }),
      chatSse({ text: "never sent", delayMs: 30_000 }),
    );
    let child: ChildProcess | undefined;
    const pending = runCli(["run", "--trace", "t.jsonl", "--tools", "files", "Write once to log.txt"], {
      cwd,
      env: env(),
      onStart: (c) => {
        child = c;
      },
    });
    // Kill it while the second model call hangs, after the tool ran.
    const started = Date.now();
    while (wire.server.requests.length < 2 && Date.now() - started < 15_000)
      await new Promise((r) => setTimeout(r, 20));
    const runId = JSON.parse(readFileSync(join(cwd, "t.jsonl"), "utf8").split("\n")[0] as string)
      .runId as string;
    child?.kill("SIGKILL");
    await pending;
    writeFileSync(join(cwd, "log.txt"), "changed after the crash");
    wire.server.reset();
    enqueue([{ text: "Done: wrote log.txt." }]);
    const resumed = await runCli(["run", "--resume", runId], { cwd, env: env() });
    expect(resumed.stderr).toContain(`resuming ${runId}`);
    expect(resumed.stdout).toBe("Done: wrote log.txt.\n");
    expect(resumed.code).toBe(0);
    expect(readFileSync(join(cwd, "log.txt"), "utf8")).toBe("changed after the crash");
    const messages = sentBody(wire.server.requests, 0).messages;
    expect(messages.filter((m) => m.role === "tool")).toEqual([
      { role: "tool", tool_call_id: "call_w", content: "Wrote 4 bytes to log.txt" },
    ]);
    const again = await runCli(["run", "--resume", runId], { cwd, env: env() });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/cannot be resumed/);
  });
});
