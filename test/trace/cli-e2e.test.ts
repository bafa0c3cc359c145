import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Agent } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { TraceWriter } from "glassloop/trace";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/cli.js";
import { DEFAULT_INSTRUCTIONS } from "../../src/cli/setup.js";
import { calculatorTool } from "../../src/tools/builtin/calculator.js";
import { captureIO } from "../helpers/trace-cli-io.js";
import { tempDir, tracedCalculatorRun } from "../helpers/traced-run.js";

const ROOT = join(import.meta.dirname, "../..");

/** A recording of what `glassloop run --tools calculator` would do, made offline. */
async function recordCalculatorRun(dir: string): Promise<string> {
  const writer = new TraceWriter({ file: join(dir, "recording.jsonl") });
  const agent = new Agent({
    name: "glassloop",
    instructions: DEFAULT_INSTRUCTIONS,
    model: new ScriptedModel([
      {
        toolCalls: [{ name: "calculator", args: { expression: "(200+10)*2" } }],
        usage: { inputTokens: 90, outputTokens: 12 },
      },
      { text: "The answer is 420.", usage: { inputTokens: 120, outputTokens: 6 } },
    ]),
    tools: [calculatorTool()],
  });
  await agent.run("What is (200+10)*2?", { onEvent: writer.onEvent });
  return writer.files[0] as string;
}

describe("glassloop trace through the glassloop binary", () => {
  it("run --trace writes a trace that trace show prints and trace replay reproduces without --agent", async () => {
    const cwd = tempDir();
    const recording = await recordCalculatorRun(cwd);
    const run = captureIO(cwd, { NO_COLOR: "1" });
    const code = await main(
      [
        "run",
        "--model",
        `replay:${recording}`,
        "--tools",
        "calculator",
        "--trace",
        join(cwd, "out.jsonl"),
        "What is (200+10)*2?",
      ],
      run,
    );
    expect(run.err()).not.toMatch(/error/i);
    expect(code).toBe(0);
    const out = join(cwd, "out.jsonl");
    expect(readFileSync(out, "utf8")).toContain('"type":"run_end"');

    const show = captureIO(cwd);
    expect(await main(["trace", "show", "out.jsonl"], show)).toBe(0);
    expect(show.out()).toContain('→ calculator {"expression":"(200+10)*2"}  ok');
    expect(show.out()).toContain("says: The answer is 420.");

    const replay = captureIO(cwd);
    expect(await main(["trace", "replay", "out.jsonl"], replay)).toBe(0);
    expect(replay.out()).toMatch(/^reproduced run_\S+: 2 step\(s\)/);

    // A trace whose tools are not built in needs --agent, and says so (exit 2).
    await tracedCalculatorRun(join(cwd, "other"));
    const other = captureIO(cwd);
    const [file] = (await import("node:fs")).readdirSync(join(cwd, "other"));
    expect(await main(["trace", "replay", join("other", file as string)], other)).toBe(2);
    expect(other.err()).toContain("not built in (add, multiply)");
  });

  it("trace view prints its 127.0.0.1 address, serves the runs, and stops on SIGINT", async () => {
    const cwd = tempDir();
    const { result } = await tracedCalculatorRun(join(cwd, ".glassloop/traces"));
    writeFileSync(join(cwd, "package.json"), "{}");
    const child = spawn(
      process.execPath,
      [
        "--import",
        pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href,
        join(ROOT, "src/cli/main.ts"),
        "trace",
        "view",
        result.runId,
      ],
      {
        cwd,
        env: { ...process.env, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (c: Buffer) => {
        stdout += c.toString();
        const m = /Trace viewer on (http:\/\/127\.0\.0\.1:\d+\/)(#\S*)?/.exec(stdout);
        if (m) resolve(m[1] as string);
      });
      child.on("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    expect(stdout).toContain(`#/run/${result.runId}`);
    const runs = await new Promise<string>((resolve, reject) => {
      request(`${url}api/runs`, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => {
          body += c.toString();
        });
        res.on("end", () => resolve(body));
      })
        .on("error", reject)
        .end();
    });
    expect(JSON.parse(runs).runs[0].runId).toBe(result.runId);
    const exit = new Promise<number | null>((resolve) => child.on("exit", resolve));
    child.kill("SIGINT");
    expect(await exit).toBe(0);
  });
});
