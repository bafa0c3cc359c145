/**
 * The CLI says what went wrong: a network failure names the host and the cause and shows each
 * retry as it happens, `--json` answers every outcome with one object, the terminal shows no
 * spinner under NO_COLOR, a trace that cannot be written is never silent, and a finished run is
 * named as finished before any model is resolved.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import { Agent, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { TraceWriter } from "glassloop/trace";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { cleanEnv, cliArgv, runCli, tempCwd, useWireServer } from "../helpers/cli.js";
import { chatSse } from "../helpers/openai-replies.js";
import { spawnPty } from "../helpers/pty.js";

const KEY = "sk-test-errors-0123456789";
const wire = useWireServer(KEY);

/** A loopback port nothing listens on (taken, then freed): the connection is refused at once. */
let refusedPort = 0;
const refused = () =>
  cleanEnv({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `http://127.0.0.1:${refusedPort}/v1` });
beforeAll(async () => {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  refusedPort = (probe.address() as AddressInfo).port;
  await new Promise((done) => probe.close(done));
});

describe("a network failure", () => {
  it("names the host and the cause, shows each retry as it happens, and counts every attempt", async () => {
    const run = await runCli(["run", "hello"], { cwd: tempCwd(), env: refused() });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toMatch(/the request failed: fetch failed$/m);
    expect(run.stderr).toContain(
      `✗ run failed: Model call failed: openai: the request to 127.0.0.1:${refusedPort} failed:`,
    );
    expect(run.stderr).toContain(`ECONNREFUSED 127.0.0.1:${refusedPort}`);
    const retries = run.stderr.split("\n").filter((l) => l.includes("retrying in"));
    expect(retries).toEqual([
      expect.stringMatching(/retrying in \d+\.\d s \(2\/3\): .*ECONNREFUSED/),
      expect.stringMatching(/retrying in \d+\.\d s \(3\/3\): .*ECONNREFUSED/),
    ]);
    expect(run.stderr).toMatch(/ 3 requests · /);
  });

  it("--json carries the same message and the three requests in usage", async () => {
    const run = await runCli(["run", "--json", "hello"], { cwd: tempCwd(), env: refused() });
    expect(run.code).toBe(1);
    const result = JSON.parse(run.stdout);
    expect(result.error.message).toContain(`ECONNREFUSED 127.0.0.1:${refusedPort}`);
    expect(result.usage.requests).toBe(3);
  });
});

describe("--json answers every outcome with one JSON object", () => {
  it.each([
    [["run", "--json", "--bogus", "x"], /Unknown option '--bogus'/],
    [["run", "--json"], /no task given/],
    [["run", "--json", "--max-steps", "0", "x"], /--max-steps must be/],
    [["models", "--json", "--bogus"], /Unknown option '--bogus'/],
  ])(
    "bad usage %j: {status: error, error: {code: usage, message}} on stdout, exit 2",
    async (args, message) => {
      const run = await runCli(args, { cwd: tempCwd(), env: wire.env() });
      expect(run.code).toBe(2);
      expect(run.stdout.trim().split("\n")).toHaveLength(1);
      expect(JSON.parse(run.stdout)).toEqual({
        status: "error",
        error: { code: "usage", message: expect.stringMatching(message) },
      });
    },
  );

  it("durations are rounded to 0.1 ms", async () => {
    wire.server.enqueue(chatSse({ text: "hi" }));
    const run = await runCli(["run", "--json", "hello"], { cwd: tempCwd(), env: wire.env() });
    expect(run.code).toBe(0);
    const durations = [...run.stdout.matchAll(/"(\w*(?:durationMs|latencyMs))":([\d.e-]+)/g)];
    expect(durations.length).toBeGreaterThan(0);
    for (const [, , value] of durations) expect(value).toMatch(/^\d+(\.\d)?$/);
  });
});

describe("on a terminal", () => {
  it("NO_COLOR=1 shows no spinner; without it the spinner shows", async () => {
    const spinner = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]|thinking…/;
    for (const noColor of [true, false]) {
      wire.server.reset();
      wire.server.enqueue(chatSse({ text: "done", delayMs: 400 }));
      const env = wire.env();
      if (!noColor) delete env.NO_COLOR;
      const pty = spawnPty(cliArgv("run", "hello"), { cwd: tempCwd(), env });
      expect(await pty.exited).toBe(0);
      expect(pty.output).toContain("done");
      if (noColor) expect(pty.raw).not.toMatch(spinner);
      else expect(pty.raw).toMatch(spinner);
    }
  });

  it("Ctrl-C exits 130", async () => {
    wire.server.enqueue(chatSse({ text: "too late", delayMs: 20_000 }));
    const pty = spawnPty(cliArgv("run", "Tell me a long story"), { cwd: tempCwd(), env: wire.env() });
    while (wire.server.requests.length < 1) await new Promise((r) => setTimeout(r, 20));
    pty.write("\u0003");
    expect(await pty.exited).toBe(130);
  });
});

describe("--trace", () => {
  it("--trace <directory> writes <directory>/<runId>.jsonl", async () => {
    const cwd = tempCwd();
    mkdirSync(join(cwd, "traces"));
    wire.server.enqueue(chatSse({ text: "hi" }));
    const run = await runCli(["run", "--json", "--trace", "traces", "hello"], { cwd, env: wire.env() });
    expect(run.code).toBe(0);
    const { runId, trace } = JSON.parse(run.stdout);
    expect(trace).toBe(join(cwd, "traces", `${runId}.jsonl`));
    expect(readFileSync(trace, "utf8")).toContain('"type":"run_end"');
    expect(readdirSync(join(cwd, "traces"))).toEqual([`${runId}.jsonl`]);
  });

  it("a --trace that cannot be written fails with exit 2 before the run, naming the path", async () => {
    const cwd = tempCwd();
    writeFileSync(join(cwd, "a-file"), "not a directory");
    const run = await runCli(["run", "--trace", "a-file/t.jsonl", "hello"], { cwd, env: wire.env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(join(cwd, "a-file/t.jsonl"));
    expect(run.stderr).not.toContain("Warning");
    expect(wire.server.requests).toHaveLength(0);
    const json = await runCli(["run", "--json", "--trace", "a-file/t.jsonl", "hello"], {
      cwd,
      env: wire.env(),
    });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: "error", error: { code: "usage" } });
  });

  it("when the default trace directory cannot be written the run goes on and says so", async () => {
    const cwd = tempCwd();
    mkdirSync(join(cwd, ".glassloop"));
    writeFileSync(join(cwd, ".glassloop", "traces"), "a file where the directory should be");
    wire.server.enqueue(chatSse({ text: "hi" }));
    const run = await runCli(["run", "hello"], { cwd, env: wire.env() });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/! .*trace.*not written|! runs are not traced/);
    expect(run.stderr).not.toContain("Warning");
  });
});

describe("--resume", () => {
  it("of a finished run says it already ended, before resolving the model (no key complaint)", async () => {
    const cwd = tempCwd();
    wire.server.enqueue(chatSse({ text: "hi" }));
    const first = await runCli(["run", "--json", "hello"], { cwd, env: wire.env() });
    const { runId } = JSON.parse(first.stdout);
    const again = await runCli(["run", "--resume", runId], { cwd, env: cleanEnv() });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already ended \(ok\)/);
    expect(again.stderr).not.toContain("OPENAI_API_KEY");
    expect(existsSync(join(cwd, ".glassloop", "glassloop.db"))).toBe(true);
  });
});

describe("words", () => {
  it("trace list and show: one plural per count, no budget_exceeded (budget_exceeded)", async () => {
    const cwd = tempCwd();
    const dir = join(cwd, ".glassloop", "traces");
    const writer = new TraceWriter({ dir });
    const probe = tool({
      name: "probe",
      description: "Probes.",
      input: z.object({}),
      run: () => "ok",
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "probe", args: {} }] }, { text: "never" }]);
    const agent = new Agent({ model, tools: [probe], limits: { maxSteps: 1 } });
    const error = await agent.run("go", { onEvent: writer.onEvent }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "budget_exceeded" });
    const list = await runCli(["trace", "list"], { cwd, env: cleanEnv() });
    expect(list.stdout).toContain("budget_exceeded");
    expect(list.stdout).not.toContain("budget_exceeded (budget_exceeded)");
    const runId = (error as { runId: string }).runId;
    const show = await runCli(["trace", "show", runId], { cwd, env: cleanEnv() });
    expect(show.stdout).toContain(" 1 step ");
    expect(show.stdout).toContain("first request (1 message, 1 tool)");
    expect(show.stdout).not.toMatch(/\b1 (steps|messages|tools)\b/);
  });

  it("the no-model hint names OPENAI_BASE_URL with --model for a local server", async () => {
    const run = await runCli(["run", "x"], { cwd: tempCwd(), env: cleanEnv() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1 .*--model openai:/);
  });
});
