import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SCENARIOS } from "../../src/cli/demo/scenarios.js";
import { cleanEnv, runCli, tempCwd } from "../helpers/cli.js";
import { recordDemos } from "../helpers/record-demos.js";

const RECORDINGS = fileURLToPath(new URL("../../recordings/", import.meta.url));

describe("glassloop demo", () => {
  it("runs the worked examples offline through the real loop and tools, saying the answers are replayed", async () => {
    // No key, no reachable Ollama, no network needed: only the recordings.
    const run = await runCli(["demo"], { cwd: tempCwd(), env: cleanEnv() });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "The agent loop, the tools and every event are real; the model is not. Its answers are REPLAYED",
    );
    expect(run.stdout.split("\n")).toEqual([
      "420",
      "(12 + 8) * 2 is 40.",
      "From the lookups:",
      "Beijing: sunny, 15-25°C.",
      "Shanghai: cloudy, 18-28°C.",
      "Shanghai's high and low are both above Beijing's, so Shanghai is warmer.",
      "Hello! I am an AI assistant. I can help you by calling tools, for example to look up the weather or to do arithmetic. What can I do for you?",
      "",
    ]);
    // The calculator's calls, with the recorded arguments, through the real tools.
    expect(run.stderr).toContain('→ add {"a":200,"b":10}');
    expect(run.stderr).toContain('→ multiply {"a":210,"b":2}');
    expect(run.stderr).toContain('→ finish {"answer":"420"}');
    expect(run.stderr).toMatch(/→ calculator \{"expression":"\(12\+8\)\*2"\}\n {2}← 40 /);
    expect(run.stderr).toContain("← cloudy, 18-28°C, southeast wind force 3");
    expect(run.stderr).toContain(
      "refused: Cannot evaluate \"__import__('os').system('rm -rf /')\": Unknown name \"__import__\"",
    );
    expect(run.stderr).toContain(
      "Done: 4 runs replayed through the real loop and tools, each matching its recording.",
    );
  });

  it("traces each run where glassloop run does, so trace list right after shows them", async () => {
    const cwd = tempCwd();
    const demo = await runCli(["demo"], { cwd, env: cleanEnv() });
    expect(demo.code).toBe(0);
    expect(demo.stderr).toContain(
      "traces: .glassloop/traces/ (see them: glassloop trace list, glassloop trace view)",
    );
    const list = await runCli(["trace", "list"], { cwd, env: cleanEnv() });
    expect(list.code).toBe(0);
    expect(
      list.stdout
        .trim()
        .split("\n")
        .filter((l) => l.includes("run_")),
    ).toHaveLength(4);
    const none = tempCwd();
    await runCli(["demo", "--no-trace", "calculator"], { cwd: none, env: cleanEnv() });
    expect(existsSync(join(none, ".glassloop"))).toBe(false);
  });

  it("runs one example by name and lists them", async () => {
    const one = await runCli(["demo", "calculator"], { cwd: tempCwd(), env: cleanEnv() });
    expect(one.code).toBe(0);
    expect(one.stdout).toBe("420\n");
    const list = await runCli(["demo", "--list"], { cwd: tempCwd(), env: cleanEnv() });
    expect(
      list.stdout
        .trim()
        .split("\n")
        .map((l) => l.split(" ")[0]),
    ).toEqual([...SCENARIOS.map((s) => s.name), "refusal"]);
    const unknown = await runCli(["demo", "no-such-example"], { cwd: tempCwd(), env: cleanEnv() });
    expect(unknown.code).toBe(2);
  });

  it("the example without a recording runs by name too: the calculator tool refuses code", async () => {
    const refusal = await runCli(["demo", "refusal"], { cwd: tempCwd(), env: cleanEnv() });
    expect(refusal.code).toBe(0);
    expect(refusal.stderr).toContain("[1/1] code where a number belongs: the calculator tool refuses it");
    expect(refusal.stderr).toContain("refused: Cannot evaluate");
    expect(refusal.stderr).toContain(
      "Done: the calculator tool refused every expression that is not arithmetic.",
    );
  });

  it("stops a replay that diverges from its recording and says at which call and what differs", async () => {
    const dir = tempCwd("glassloop-recordings-");
    cpSync(RECORDINGS, dir, { recursive: true });
    const file = join(dir, "calculator.jsonl");
    // Edit the recording as if the add tool had returned 211 when it was made.
    const lines = readFileSync(file, "utf8").split("\n");
    const step2 = lines.findIndex((l) => l.includes('"type":"model_request"') && l.includes('"step":2'));
    lines[step2] = (lines[step2] as string).replace('"content":"210"', '"content":"211"');
    writeFileSync(file, lines.join("\n"));
    const run = await runCli(["demo", "--recordings", dir, "calculator"], {
      cwd: tempCwd(),
      env: cleanEnv(),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'Replay diverged at model call 2 (step 2 of the recorded run): messages[2].content differs. Recorded "211", the agent sent "210"',
    );
    expect(run.stderr).toContain("1 of 1 replays did not match their recordings.");
  });

  it("glassloop run replays a demo recording with the example's agent, and stops at the first request that differs", async () => {
    const model = `replay:${join(RECORDINGS, "calculator.jsonl")}`;
    const same = await runCli(["run", "--model", model, "Add 200 and 10, then multiply the result by 2."], {
      cwd: tempCwd(),
      env: cleanEnv(),
    });
    expect(same.code).toBe(0);
    expect(same.stdout).toBe("420\n");
    expect(same.stderr).toContain("the model's answers are replayed from a recording");
    expect(same.stderr).toContain('agent: the one of "glassloop demo calculator"');
    const other = await runCli(["run", "--model", model, "Add 200 and 10."], {
      cwd: tempCwd(),
      env: cleanEnv(),
    });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(
      /Replay diverged at model call 1 \(step 1 of the recorded run\): messages\[0\]\.content\[0\] differs\. Recorded "Add 200 and 10, then multiply the result by 2\.", the agent sent "Add 200 and 10\."/,
    );
    // Tools of your own choosing: the recorded instructions, and the tools that differ named.
    const tools = await runCli(
      ["run", "--model", model, "--tools", "calculator", "Add 200 and 10, then multiply the result by 2."],
      { cwd: tempCwd(), env: cleanEnv() },
    );
    expect(tools.code).toBe(1);
    expect(tools.stderr).toContain("(recorded tools: add, multiply, finish; the agent's: calculator)");
    expect(tools.stderr).not.toContain("the agent sent nothing");
  });

  it("trace replay reproduces each shipped recording without --agent, offline", async () => {
    for (const s of SCENARIOS) {
      const run = await runCli(["trace", "replay", join(RECORDINGS, `${s.name}.jsonl`)], {
        cwd: tempCwd(),
        env: cleanEnv(),
      });
      expect(run.stderr, s.name).toContain(`A recording of "glassloop demo ${s.name}"`);
      expect(run.stdout, s.name).toMatch(/^reproduced run_/m);
      expect(run.code, s.name).toBe(0);
    }
  });

  it("the shipped recordings are what recording the examples again produces", async () => {
    const dir = `${tempCwd("glassloop-rerecord-")}/`;
    await recordDemos(dir);
    const meaning = (path: string) =>
      readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((e) => e.type === "model_request" || e.type === "model_response" || e.type === "tool_result")
        .map(({ runId: _r, time: _t, url: _u, latencyMs: _l, durationMs: _d, ...rest }) => rest);
    for (const s of SCENARIOS) {
      expect(meaning(join(dir, `${s.name}.jsonl`)), s.name).toEqual(
        meaning(join(RECORDINGS, `${s.name}.jsonl`)),
      );
    }
  });
});
