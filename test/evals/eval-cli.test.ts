import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCli as runAnyCli, tempCwd, useWireServer } from "../helpers/cli.js";
import { chatJson, sentBody } from "../helpers/openai-replies.js";
import type { RecordedRequest } from "../helpers/wire-server.js";

const FIXTURE = join(import.meta.dirname, "fixtures/capitals.eval.ts");
const SRC = join(import.meta.dirname, "../../src");

/** The eval file imports glassloop's sources, so the CLI that loads it runs from them too (one copy). */
const runCli = (args: string[], options: Parameters<typeof runAnyCli>[1]) =>
  runAnyCli(args, { ...options, src: true });

type Body = { messages: { role: string; content?: string | null }[] };

/** The model behind the wire: looks the country up, then answers; gets Peru wrong unless `fixed`. */
function capitalsModel(fixed: boolean, tokens = 1) {
  return (request: RecordedRequest, index: number) => {
    const body = request.body as Body;
    const tool = body.messages.find((m) => m.role === "tool");
    const question = body.messages.find((m) => m.role === "user")?.content ?? "";
    const country = /capital of (\w+)/.exec(question)?.[1] ?? "nowhere";
    if (!tool) {
      return chatJson(
        {
          toolCalls: [
            { id: `call_${index}`, name: "lookup_capital", arguments: JSON.stringify({ country }) },
          ],
          usage: { prompt_tokens: 60 * tokens, completion_tokens: 12 * tokens },
        },
        index,
      );
    }
    const answer = country === "Peru" && !fixed ? "Cusco" : tool.content;
    return chatJson(
      {
        text: `The capital is ${answer}.`,
        usage: { prompt_tokens: 90 * tokens, completion_tokens: 8 * tokens },
      },
      index,
    );
  };
}

describe("glassloop eval through the real CLI against the local wire server", () => {
  const wire = useWireServer("sk-test-eval-cli-0123456789");

  it("runs the eval, writes result and traces, compares with a baseline, then replays offline", async () => {
    const cwd = tempCwd("glassloop-eval-");
    wire.server.handler = capitalsModel(false);
    const first = await runCli(["eval", FIXTURE, "--model", "openai:gpt-4o-mini", "--out", "run1"], {
      cwd,
      env: wire.env(),
    });
    expect(first.stderr).not.toMatch(/error/i);
    expect(first.code).toBe(0);
    expect(wire.server.requests).toHaveLength(6);
    expect(sentBody<{ tools: unknown[] }>(wire.server.requests, 0).tools).toHaveLength(1);
    // The table: one row per case, a column per scorer, then the summary with its interval.
    expect(first.stdout).toMatch(/^case +pass +contains +tools +no-tool-errors +cost +latency$/m);
    expect(first.stdout).toMatch(/^france +pass +✓ +✓ +✓ +\$0\.000\d+ +(\d+ ms|[\d.]+ s)$/m);
    expect(first.stdout).toMatch(/^peru +FAIL +✗ +✓ +✓ /m);
    expect(first.stdout).toMatch(/pass rate {3}67% \[21%, 94%\] {2}\(2\/3 trials/);
    expect(first.stdout).toMatch(/cost {8}\$0\.000\d+ total · per trial median/);
    expect(first.stderr).toContain(`result: ${join(cwd, "run1", "result.json")}`);
    // An eval written with --out is not where the viewer looks by default: the hint names it.
    expect(first.stderr).toContain('view it: glassloop trace view --evals "run1"');
    const { listResults } = await import("../../src/evals/result-file.js");
    expect(listResults(join(cwd, "run1")).evals.map((e) => e.name)).toEqual(["capitals"]);
    // No progress bar off a terminal.
    expect(first.stderr).not.toMatch(/█|░/);
    const result = JSON.parse(readFileSync(join(cwd, "run1", "result.json"), "utf8"));
    expect(result.format).toBe("glassloop-eval");
    for (const c of result.cases) {
      const trace = join(cwd, "run1", c.trials[0].trace);
      expect(existsSync(trace)).toBe(true);
      expect(readFileSync(trace, "utf8")).toContain(c.trials[0].runIds[0]);
    }

    // The fixed model, against the first run as baseline: Peru improved; the test says how sure.
    wire.server.reset();
    wire.server.handler = capitalsModel(true);
    const second = await runCli(
      ["eval", FIXTURE, "--model", "openai:gpt-4o-mini", "--out", "run2", "--baseline", "run1", "--json"],
      { cwd, env: wire.env() },
    );
    expect(second.code).toBe(0);
    const out = JSON.parse(second.stdout);
    expect(out.result.summary.passRate.value).toBe(1);
    expect(out.comparison).toMatchObject({ improved: 1, regressed: 0, unchanged: 2 });
    expect(out.comparison.mcnemar).toEqual({ regressed: 0, improved: 1, pValue: 1 });
    expect(out.comparison.cases.find((c: { id: string }) => c.id === "peru").change).toBe("improved");

    // Offline: no key, no server; the recording answers. Then a changed tool description diverges.
    const offline = cleanEnv();
    const replay = await runCli(["eval", FIXTURE, "--replay", "run1"], { cwd, env: offline });
    expect(replay.stderr).toContain(
      "replayed 3 trial(s) offline: every request and score matched the recording",
    );
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(/pass rate {3}67%/);
    const changed = await runCli(["eval", FIXTURE, "--replay", "run1"], {
      cwd,
      env: { ...offline, CAPITALS_TOOL_DESCRIPTION: "Finds a capital." },
    });
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('replay diverged: case "france" (repeat 1)');
    expect(changed.stderr).toContain("tools[0].description");
    expect(changed.stderr).toContain('- recorded: "Looks up the capital city of a country."');
    expect(changed.stderr).toContain('+ now:      "Finds a capital."');
  });

  it("stops before spending past --max-cost and keeps what finished", async () => {
    const cwd = tempCwd("glassloop-eval-");
    // gpt-4o-mini ($0.15 / $0.60 per million tokens): each trial here costs about $0.00069, and a
    // call's worst case (request bytes as input tokens plus 1,024 output tokens) about $0.00075.
    // $0.0018 pays for two trials; the third's first call could pass the budget, so it is not made.
    wire.server.handler = capitalsModel(true, 20);
    const run = await runCli(
      [
        "eval",
        FIXTURE,
        "--model",
        "openai:gpt-4o-mini",
        "--concurrency",
        "1",
        "--max-cost",
        "0.0018",
        "--json",
      ],
      { cwd, env: wire.env() },
    );
    const { result } = JSON.parse(run.stdout);
    expect(run.code).toBe(1);
    expect(result.stopped).toBe("budget");
    const spent = result.cases
      .flatMap((c: { trials: { costUsd?: number }[] }) => c.trials)
      .reduce((s: number, t: { costUsd?: number }) => s + (t.costUsd ?? 0), 0);
    expect(spent).toBeLessThanOrEqual(0.0018);
    expect(result.summary.scored).toBe(2);
    expect(result.cases[2].trials[0]).toMatchObject({ status: "aborted", error: { code: "eval_budget" } });
    expect(wire.server.requests).toHaveLength(4);
  });

  it("Ctrl-C stops the eval: what finished is written and reported, exit 130", async () => {
    const cwd = tempCwd("glassloop-eval-");
    const answer = capitalsModel(true);
    // The first case answers at once; every later request hangs until the child is interrupted.
    wire.server.handler = (request, index) =>
      index < 2 ? answer(request, index) : { ...answer(request, index), delayMs: 60_000 };
    let child: ChildProcess | undefined;
    const running = runCli(
      ["eval", FIXTURE, "--model", "openai:gpt-4o-mini", "--concurrency", "1", "--out", "cut"],
      {
        cwd,
        env: wire.env(),
        onStart: (c) => {
          child = c;
        },
      },
    );
    await expect.poll(() => wire.server.requests.length, { timeout: 20_000 }).toBe(3);
    child?.kill("SIGINT");
    const run = await running;
    expect(run.code).toBe(130);
    expect(run.stdout).toMatch(/^france +pass /m);
    expect(run.stdout).toMatch(/stopped early \(aborted\): 2 of 3 trial\(s\) did not run to a score/);
    const result = JSON.parse(readFileSync(join(cwd, "cut", "result.json"), "utf8"));
    expect(result.stopped).toBe("aborted");
    expect(result.cases.map((c: { trials: { status: string }[] }) => c.trials[0]?.status)).toEqual([
      "ok",
      "aborted",
      "skipped",
    ]);
  });

  it("says what is wrong with a bad eval file or flag", async () => {
    const cwd = tempCwd("glassloop-eval-");
    const none = await runCli(["eval", "missing.eval.ts"], { cwd, env: cleanEnv() });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no eval file at .*missing\.eval\.ts/);
    const bad = await runCli(["eval", FIXTURE, "--repeat", "0"], { cwd, env: cleanEnv() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--repeat must be a whole number from 1");
  });

  it("an eval whose runs cannot start (no key) exits 2 and scores nothing", async () => {
    const cwd = tempCwd("glassloop-eval-");
    const run = await runCli(["eval", FIXTURE], { cwd, env: cleanEnv(), timeoutMs: 60_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/needs an API key: set OPENAI_API_KEY/);
    expect(run.stdout).not.toMatch(/pass rate/);
    const evals = join(cwd, ".glassloop/evals");
    expect(existsSync(evals) ? readdirSync(evals) : []).toEqual([]);
  }, 90_000);

  it("a dataset file that cannot be used exits 2 with the file, the line and the field", async () => {
    const cwd = tempCwd("glassloop-eval-");
    writeFileSync(join(cwd, "package.json"), '{"type":"module"}\n');
    writeFileSync(join(cwd, "cases.jsonl"), '{"input":"What is 2 + 2?"}\n{"inptu":"typo"}\n');
    writeFileSync(
      join(cwd, "bad.eval.ts"),
      `import { defineEval, exact, loadDataset } from ${JSON.stringify(join(SRC, "evals/index.js"))};
import { Agent } from ${JSON.stringify(join(SRC, "index.js"))};
export default defineEval({
  agent: ({ model }) => new Agent({ model: model ?? "openai:gpt-4o-mini" }),
  dataset: loadDataset("cases.jsonl"),
  scorers: [exact()],
});
`,
    );
    const run = await runCli(["eval", "bad.eval.ts"], { cwd, env: cleanEnv(), timeoutMs: 60_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^glassloop eval: cases\.jsonl:2: input: missing/m);
  }, 90_000);
});
