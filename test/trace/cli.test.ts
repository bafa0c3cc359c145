import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import trace from "../../src/trace/cli.js";
import { captureIO } from "../helpers/trace-cli-io.js";
import { tempDir, tracedCalculatorRun } from "../helpers/traced-run.js";

const AGENT = join(import.meta.dirname, "fixtures/calculator-agent.ts");

describe("glassloop trace", () => {
  it("list prints the runs of the trace directory", async () => {
    const cwd = tempDir();
    const { result } = await tracedCalculatorRun(join(cwd, ".glassloop/traces"));
    const io = captureIO(cwd);
    expect(await trace.run(["list"], io)).toBe(0);
    expect(io.out()).toMatch(/^RUN\s+STARTED/);
    expect(io.out()).toContain(result.runId);
  });

  it("show prints a run by id, by file, and as JSON", async () => {
    const cwd = tempDir();
    const dir = join(cwd, "traces");
    const { result, file } = await tracedCalculatorRun(dir);
    const byId = captureIO(cwd);
    expect(await trace.run(["show", result.runId, "--dir", "traces"], byId)).toBe(0);
    expect(byId.out()).toContain("step 2");
    expect(byId.out()).toContain('→ multiply {"a":210,"b":2}  ok');
    copyFileSync(file, join(cwd, "copy.jsonl"));
    const byFile = captureIO(cwd);
    await trace.run(["show", "copy.jsonl"], byFile);
    expect(byFile.out()).toBe(byId.out().replace(file, join(cwd, "copy.jsonl")));
    const json = captureIO(cwd);
    await trace.run(["show", "copy.jsonl", "--json"], json);
    expect(JSON.parse(json.out()).steps).toHaveLength(3);
  });

  it("replay reproduces a run, and exits 1 naming the step when a tool changed", async () => {
    const cwd = tempDir();
    const { file } = await tracedCalculatorRun(join(cwd, "traces"));
    const ok = captureIO(cwd);
    expect(await trace.run(["replay", file, "--agent", AGENT, "--trace", "replayed.jsonl"], ok)).toBe(0);
    expect(ok.out()).toMatch(
      /^reproduced run_\S+: 3 step\(s\); every request and tool result matched the recording/,
    );
    expect(ok.out()).toContain('output: "420"');
    expect(readFileSync(join(cwd, "replayed.jsonl"), "utf8")).toContain('"type":"run_end"');

    process.env.GLASSLOOP_TEST_MULTIPLY_BUG = "1";
    try {
      const bad = captureIO(cwd);
      expect(await trace.run(["replay", file, "--agent", AGENT], bad)).toBe(1);
      expect(bad.out()).toContain("diverged at step 2 (tool_result: multiply)");
      expect(bad.out()).toContain('recorded: {"status":"ok","content":"420"}');
      expect(bad.out()).toContain('now:      {"status":"ok","content":"840"}');
    } finally {
      delete process.env.GLASSLOOP_TEST_MULTIPLY_BUG;
    }
  });

  it("show scrubs keys from a trace it did not write", async () => {
    const cwd = tempDir();
    const key = "sk-live-FOREIGNforeignFOREIGN1234";
    const line = (e: object) => JSON.stringify({ runId: "run_f", time: 1, ...e });
    writeFileSync(
      join(cwd, "foreign.jsonl"),
      [
        line({ type: "run_start", model: "x:y", input: `my key is ${key}` }),
        line({ type: "step_start", step: 1 }),
        line({ type: "tool_call", step: 1, toolCallId: "c", toolName: "t", arguments: `{"k":"${key}"}` }),
      ].join("\n"),
    );
    for (const args of [
      ["show", "foreign.jsonl"],
      ["show", "foreign.jsonl", "--json"],
    ]) {
      const io = captureIO(cwd, { SOME_TOKEN: "never-printed-token-value" });
      await trace.run(args, io);
      expect(io.out()).toContain("[REDACTED]");
      expect(io.out()).not.toContain(key);
    }
  });

  it("rejects bad usage with clear messages", async () => {
    const io = captureIO(tempDir());
    await expect(trace.run([], io)).rejects.toThrow(/needs a subcommand/);
    await expect(trace.run(["frobnicate"], io)).rejects.toThrow(/unknown trace subcommand/);
    await expect(trace.run(["show"], io)).rejects.toThrow(/needs a run id/);
    await expect(trace.run(["list", "--bogus"], io)).rejects.toThrow(/Unknown option/);
    await expect(trace.run(["replay", "x.jsonl", "--from-step", "2"], io)).rejects.toThrow(
      /both --from-step/,
    );
    await expect(
      trace.run(["replay", "x.jsonl", "--from-step", "zero", "--model", "a:b"], io),
    ).rejects.toThrow(/step number/);
    await expect(trace.run(["replay", "x.jsonl"], io)).rejects.toThrow(/No trace file at/);
    await expect(trace.run(["show", "run_nothing_here"], io)).rejects.toThrow(/No run "run_nothing_here"/);
  });
});
