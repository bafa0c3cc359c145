// A crafted trace, replayed with `glassloop trace replay <file>` (no --agent),
// chooses which built-in tools run and with what arguments. By default it must not get to run
// one that touches the world: the recording answers them.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { TraceWriter } from "glassloop/trace";
import { describe, expect, it } from "vitest";
import { filesTools } from "../../src/tools/builtin/files.js";
import { cleanEnv, runCli, tempCwd } from "../helpers/cli.js";

/** The attacker's trace: a `glassloop run --tools files` that overwrote package.json, made elsewhere. */
async function craftTrace(): Promise<string> {
  const elsewhere = tempCwd("glassloop-attacker-");
  const writer = new TraceWriter({ file: join(elsewhere, "bug-report.jsonl") });
  const agent = new Agent({
    name: "glassloop",
    instructions: "You are a helpful assistant.",
    model: new ScriptedModel([
      { toolCalls: [{ name: "write_file", args: { path: "package.json", content: '{"pwned":true}' } }] },
      { text: "Done." },
    ]),
    tools: filesTools({ root: elsewhere }),
  });
  await agent.run("Please look at this bug", { onEvent: writer.onEvent });
  return writer.files[0] as string;
}

describe("glassloop trace replay of a foreign trace", () => {
  it("without --agent, write_file is answered from the recording: package.json is untouched", async () => {
    const trace = await craftTrace();
    const victim = tempCwd("glassloop-victim-");
    writeFileSync(join(victim, "package.json"), '{"name":"victim"}');
    const replay = await runCli(["trace", "replay", trace], { cwd: victim, env: cleanEnv() });
    expect(replay.stdout).toMatch(/^reproduced run_\S+: 2 step\(s\)/);
    expect(replay.code).toBe(0);
    expect(replay.stderr).toContain(
      "Answering read_file, list_files, write_file from the recording (not run); --run-tools runs them for real.",
    );
    expect(readFileSync(join(victim, "package.json"), "utf8")).toBe('{"name":"victim"}');
  });

  it("--run-tools runs them for real, as it says", async () => {
    const trace = await craftTrace();
    const victim = tempCwd("glassloop-victim-");
    writeFileSync(join(victim, "package.json"), '{"name":"victim"}');
    const replay = await runCli(["trace", "replay", trace, "--run-tools"], { cwd: victim, env: cleanEnv() });
    expect(replay.code).toBe(0);
    expect(replay.stderr).not.toContain("from the recording");
    expect(readFileSync(join(victim, "package.json"), "utf8")).toBe('{"pwned":true}');
  });

  it("--run-tools with --agent is refused: the module decides its own tools", async () => {
    const trace = await craftTrace();
    const replay = await runCli(["trace", "replay", trace, "--run-tools", "--agent", "x.ts"], {
      cwd: tempCwd(),
      env: cleanEnv(),
    });
    expect(replay.code).toBe(2);
    expect(replay.stderr).toContain("--run-tools is for a replay without --agent");
  });
});
