import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type CliIO, type Command, EXIT, UsageError } from "../cli/command.js";
import { Printer } from "../cli/printer.js";
import { keyFreeCommands } from "../cli/shipped-recordings.js";
import { ConfigError, glassloopCodeOf } from "../core/errors.js";
import "../cli/providers.js";
import { importUserModule } from "../cli/user-module.js";
import { compareResults } from "./compare.js";
import type { EvalDefinition } from "./define.js";
import { evaluate, newEvalId } from "./evaluate.js";
import { ProgressBar } from "./progress.js";
import { EvalReplayError, replayEval } from "./replay.js";
import { formatComparison, formatReport } from "./report-table.js";
import { DEFAULT_EVAL_DIR, RESULT_FILE, readResult } from "./result-file.js";
import type { EvalResult } from "./types.js";

// Paths as typed from where the command runs, so the line can be copied as it is.
const KEY_FREE = keyFreeCommands(process.cwd()).eval;

const USAGE = `Usage: glassloop eval <file> [options]

Runs an eval: every case of the file's dataset against its agent, each trial scored and traced.
<file> is a module whose default export is defineEval({ agent, dataset, scorers, ... }) from
"glassloop/evals", in ES modules (.mjs/.mts, or "type": "module" in package.json); TypeScript
loads through tsx (npm i -D tsx). With no key, replay the eval shipped in glassloop's
recordings/evals (its file and its recording), offline:
  ${KEY_FREE}

Options:
  -m, --model provider:model   the model handed to the eval's agent function
      --repeat n               trials per case (default: the file's, else 1)
      --concurrency n          trials at once (default: the file's, else 4)
      --max-cost usd           dollars for the whole eval, judges included; no call is made
                               whose worst case would pass it
      --max-case-cost usd      dollars per trial
      --baseline <result>      compare with an earlier result (file or eval directory): case by
                               case, McNemar and paired bootstrap, cost and latency deltas
      --replay <result>        offline: answer every model call from that recorded eval; fails
                               at the first case whose request or scores differ (exit 1)
      --fail-under rate        exit 1 when the pass rate is below rate (0..1)
      --out dir                where result.json and traces/ go
                               (default ${DEFAULT_EVAL_DIR}/<eval id>)
      --json                   print one JSON object ({ result, comparison?, file }) on stdout
  -h, --help                   this help

Ctrl-C stops the eval: trials in flight are aborted, what finished is kept and written.
Exit codes: 0 done, 1 a replay diverged, --fail-under was missed or the budget ran out,
2 bad usage or configuration, 130 stopped with Ctrl-C (what finished is written).`;

const OPTIONS = {
  model: { type: "string", short: "m" },
  repeat: { type: "string" },
  concurrency: { type: "string" },
  "max-cost": { type: "string" },
  "max-case-cost": { type: "string" },
  baseline: { type: "string" },
  replay: { type: "string" },
  "fail-under": { type: "string" },
  out: { type: "string" },
  json: { type: "boolean" },
} as const;

/** `glassloop eval`: runs, replays and compares evals. */
const evalCommand: Command = {
  usage: USAGE,
  async run(args, io) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      throw new UsageError((error as Error).message, "eval");
    }
    const { values, positionals } = parsed;
    const file = positionals[0];
    if (file === undefined)
      throw new UsageError(
        `eval needs an eval file: glassloop eval evals/my.eval.ts (to try one with no key, offline: ${keyFreeCommands(io.cwd).eval})`,
        "eval",
      );
    if (positionals.length > 1)
      throw new UsageError(`eval takes one file (got ${positionals.join(", ")})`, "eval");
    if (values.replay !== undefined && values.model !== undefined) {
      throw new UsageError("--replay answers from the recording; it takes no --model", "eval");
    }
    const definition = await loadDefinition(resolve(io.cwd, file), io);
    const printer = new Printer(io);
    const baseline =
      values.baseline === undefined ? undefined : readResult(resolve(io.cwd, values.baseline)).result;
    const failUnder = values["fail-under"] === undefined ? undefined : fraction(values["fail-under"]);

    let result: EvalResult;
    let outDir: string | undefined;
    if (values.replay !== undefined) {
      try {
        result = await replayEval(definition, resolve(io.cwd, values.replay));
      } catch (error) {
        if (!(error instanceof EvalReplayError)) throw error;
        if (values.json)
          io.stdout.write(
            `${JSON.stringify({ status: "diverged", error: { code: error.code, message: error.message } })}\n`,
          );
        else printer.note(printer.err.red(`✗ replay diverged: ${error.message}`));
        return EXIT.failed;
      }
    } else {
      const id = newEvalId();
      outDir = resolve(io.cwd, values.out ?? join(DEFAULT_EVAL_DIR, id));
      const limits = { ...definition.limits };
      const maxCost =
        values["max-cost"] === undefined ? undefined : positive(values["max-cost"], "--max-cost");
      if (maxCost !== undefined) limits.maxCostUsd = maxCost;
      const caseCost =
        values["max-case-cost"] === undefined
          ? undefined
          : positive(values["max-case-cost"], "--max-case-cost");
      if (caseCost !== undefined) limits.perCase = { ...limits.perCase, maxCostUsd: caseCost };
      const progress = new ProgressBar(io.stderr);
      const controller = new AbortController();
      const onSigint = () => controller.abort(new Error("cancelled with Ctrl-C"));
      process.on("SIGINT", onSigint);
      try {
        if (!values.json && values.model) printer.note(printer.err.dim(`model: ${values.model} (--model)`));
        result = await evaluate({
          ...definition,
          id,
          ...(values.repeat !== undefined && { repeat: whole(values.repeat, "--repeat") }),
          ...(values.concurrency !== undefined && {
            concurrency: whole(values.concurrency, "--concurrency"),
          }),
          limits,
          ...(values.model !== undefined && { model: values.model }),
          signal: controller.signal,
          onEvent: progress.onEvent,
          outDir,
          env: io.env,
        }).catch((error: unknown) => {
          // Runs that cannot start (no key, most often): say how to try the eval without a model.
          if (glassloopCodeOf(error) !== "config" || values.model !== undefined) throw error;
          throw new ConfigError(
            `${(error as Error).message}\n  or, with no key, replay a recorded eval offline (--replay <dir>), e.g. ${keyFreeCommands(io.cwd).eval}`,
          );
        });
      } finally {
        process.off("SIGINT", onSigint);
        progress.clear();
      }
    }
    const comparison = baseline ? compareResults(baseline, result) : undefined;
    const resultFile = outDir === undefined ? undefined : join(outDir, RESULT_FILE);
    if (values.json) {
      io.stdout.write(
        `${JSON.stringify({ result, ...(comparison && { comparison }), ...(resultFile && { file: resultFile }) })}\n`,
      );
    } else {
      printer.line(formatReport(result, printer.out));
      if (comparison) printer.line(`\n${formatComparison(comparison, printer.out)}`);
      if (values.replay !== undefined) {
        printer.note(
          printer.err.green(
            `✓ replayed ${result.summary.scored} trial(s) offline: every request and score matched the recording`,
          ),
        );
      }
      if (resultFile) {
        printer.note(printer.err.dim(`result: ${resultFile}`));
        // The viewer lists .glassloop/evals by default; an eval written elsewhere is named to it.
        const view =
          values.out === undefined
            ? "glassloop trace view"
            : `glassloop trace view --evals ${JSON.stringify(values.out)}`;
        printer.note(printer.err.dim(`view it: ${view}   (evals are listed under "evals")`));
      }
    }
    // Ctrl-C is the user's choice: 130, as shells expect of an interrupted program.
    if (result.stopped === "aborted") return EXIT.interrupted;
    if (result.stopped) return EXIT.failed;
    if (failUnder !== undefined && result.summary.passRate.value < failUnder) {
      if (!values.json)
        printer.note(
          printer.err.red(
            `✗ pass rate ${result.summary.passRate.value.toFixed(3)} is under --fail-under ${failUnder}`,
          ),
        );
      return EXIT.failed;
    }
    return EXIT.ok;
  },
};
export default evalCommand;

function parse(args: string[]) {
  return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
}

/** Loads an eval file's default export and checks it has what an eval needs. */
export async function loadDefinition(path: string, io: CliIO): Promise<EvalDefinition> {
  if (!existsSync(path)) throw new UsageError(`no eval file at ${path}`, "eval");
  const loaded = (await importUserModule(path, io, "eval", "eval file")).default;
  const d = loaded as Partial<EvalDefinition> | undefined;
  const missing = !d || typeof d !== "object" ? ["a default export"] : [];
  if (d && typeof d === "object") {
    if (d.agent === undefined) missing.push("agent");
    if (!d.dataset || !Array.isArray(d.dataset.cases)) missing.push("dataset");
    if (!Array.isArray(d.scorers)) missing.push("scorers");
  }
  if (missing.length > 0) {
    throw new UsageError(
      `${path} lacks ${missing.join(", ")}: export default defineEval({ agent, dataset, scorers })`,
      "eval",
    );
  }
  return d as EvalDefinition;
}

function positive(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new UsageError(`${flag} must be a number above 0, got "${text}"`, "eval");
  return value;
}

function whole(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new UsageError(`${flag} must be a whole number from 1, got "${text}"`, "eval");
  return value;
}

function fraction(text: string): number {
  const value = Number(text);
  if (!(value >= 0 && value <= 1))
    throw new UsageError(`--fail-under must be a rate from 0 to 1, got "${text}"`, "eval");
  return value;
}
