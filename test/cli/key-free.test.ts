/**
 * A newcomer with no key finds, in the CLI's own words, commands that run and eval the recordings
 * shipped with glassloop, and those exact commands work offline.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCli, tempCwd } from "../helpers/cli.js";
import { ROOT } from "../helpers/packed.js";
import { recordEval } from "../helpers/record-eval.js";

/**
 * The environment of these runs. When the suite runs the CLI from the sources (dist/ older than
 * them), tsx must take the shipped eval's `import "glassloop"` to the sources as well, as it does
 * in a clone (tsconfig's paths), or the process would hold two copies of glassloop.
 */
const env = () => cleanEnv({ TSX_TSCONFIG_PATH: join(ROOT, "tsconfig.json") });

/** The words of a command line as a shell splits it (plain words, "double" or 'single' quotes). */
const words = (line: string) =>
  [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");

/** The `glassloop …` commands a message prints, as argument lists. */
const commandsIn = (text: string) =>
  [...text.matchAll(/glassloop (run --model replay:[^\n]+|eval \S+ --replay \S+)/g)].map((m) =>
    words(m[1] as string),
  );

describe("with no key, the CLI says how to try run and eval on the shipped recordings", () => {
  it("run's no-model message names a recorded run and a recorded eval, and both commands work as printed", async () => {
    const cwd = tempCwd();
    const none = await runCli(["run", "Add 2 and 3."], { cwd, env: env() });
    expect(none.code).toBe(2);
    const commands = commandsIn(none.stderr);
    expect(commands.map((c) => c[0])).toEqual(["run", "eval"]);

    const run = await runCli(commands[0] as string[], { cwd, env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("420");
    expect(run.stderr).toContain("the model's answers are replayed from a recording");

    const evaluated = await runCli(commands[1] as string[], { cwd, env: env() });
    expect(evaluated.code, evaluated.stderr).toBe(0);
    expect(evaluated.stdout).toContain(
      "pass rate   100% [44%, 100%]  (3/3 trials; every scorer passes; 95% Wilson)",
    );
    expect(evaluated.stderr).toContain(
      "✓ replayed 3 trial(s) offline: every request and score matched the recording",
    );
  });

  it("eval without a file, and eval of the shipped file without a key, name the replay (exit 2)", async () => {
    const cwd = tempCwd();
    const bare = await runCli(["eval"], { cwd, env: env() });
    expect(bare.code).toBe(2);
    expect(commandsIn(bare.stderr)).toHaveLength(1);
    const file = join(ROOT, "recordings", "evals", "calculator.eval.mjs");
    const live = await runCli(["eval", file], { cwd, env: env() });
    expect(live.code).toBe(2);
    expect(live.stderr).toContain('Model "openai:gpt-4o-mini" needs an API key');
    expect(live.stderr).toContain("or, with no key, replay a recorded eval offline (--replay <dir>)");
    // A run that cannot start writes no result to replay later.
    expect(live.stderr).not.toContain("result:");
  }, 60_000);

  it("paths under the working directory are printed relative to it, as a clone's README commands write them", async () => {
    const none = await runCli(["run", "hi"], { cwd: ROOT, env: env() });
    expect(none.stderr).toContain(
      'glassloop run --model replay:recordings/calculator.jsonl "Add 200 and 10, then multiply the result by 2."',
    );
    expect(none.stderr).toContain(
      "glassloop eval recordings/evals/calculator.eval.mjs --replay recordings/evals/calculator",
    );
  });

  it("the shipped eval recording is what recording the eval again produces", async () => {
    const dir = join(tempCwd("glassloop-rerecord-eval-"), "calculator");
    await recordEval(dir);
    const meaning = (path: string) =>
      readFileSync(path, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((e) => e.type === "model_request" || e.type === "model_response" || e.type === "tool_result")
        .map(({ runId: _r, time: _t, url: _u, latencyMs: _l, durationMs: _d, ...rest }) => rest);
    for (const id of ["add-then-double", "add", "multiply-then-add"]) {
      const trace = `traces/${id}.r1.jsonl`;
      expect(meaning(join(dir, trace)), id).toEqual(
        meaning(join(ROOT, "recordings", "evals", "calculator", trace)),
      );
    }
  });
});
