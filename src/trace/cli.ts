import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { CliIO, Command } from "../cli/command.js";
import { EXIT, UsageError } from "../cli/command.js";
import { styleFor } from "../cli/style.js";
import { visible } from "../cli/visible.js";
import { Redactor } from "../core/redact.js";
import { DEFAULT_EVAL_DIR } from "../evals/result-file.js";
import { formatRun, formatRunList } from "./format.js";
import { findRun, listRuns, readTraceEvents, traceFiles } from "./reader.js";
import { loadReplayAgent } from "./replay-agent.js";
import { formatReplayReport } from "./replay-format.js";
import { DEFAULT_TRACE_DIR, TraceWriter } from "./writer.js";

const USAGE = `Usage: glassloop trace <list|show|view|replay> [options]

  glassloop trace list                     Runs in the trace directory, newest first
  glassloop trace show <runId|file>        A run step by step: prompt changes, tool calls, tokens, cost
  glassloop trace view [runId|file]        Open the trace viewer on http://127.0.0.1 (Ctrl-C stops it)
  glassloop trace replay <file>            Re-run a recorded run against its recorded answers and
                                           report the first step that differs

Options:
  --dir <path>            Trace directory (default ${DEFAULT_TRACE_DIR})
  --json                  show: the reconstructed run as JSON
  --port <n>              view: port on 127.0.0.1 (default: a free one)
  --evals <dir>           view: eval results, a folder of them or one eval's --out folder
                          (default ${DEFAULT_EVAL_DIR})
  --agent <module>        replay: module whose default export is (model) => Agent, or an agent
                          config without a model; without it, a "glassloop run" recording is
                          replayed with its own instructions, built-in tools and limits, and
                          every tool but the calculator answers from the recording (not run)
  --run-tools             replay without --agent: run the recording's tools for real, in this
                          directory (a trace you did not make can write files with this)
  --from-step <n>         replay: fork, answering from the recording before step n ...
  --model <provider:model>  ... and from this live model from step n on
  --trace <file>          replay: write the replayed run's own trace here`;

/** `glassloop trace`: list, show, view and replay traces. */
const trace: Command = {
  usage: USAGE,
  async run(args, io) {
    const [sub, ...rest] = args;
    switch (sub) {
      case "list":
        return list(rest, io);
      case "show":
        return show(rest, io);
      case "view":
        return view(rest, io);
      case "replay":
        return replay(rest, io);
      case undefined:
        throw new UsageError("trace needs a subcommand: list, show, view or replay", "trace");
      default:
        throw new UsageError(`unknown trace subcommand "${sub}" (list, show, view, replay)`, "trace");
    }
  },
};
export default trace;

function parse<T extends Record<string, { type: "string" | "boolean" }>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message, "trace");
  }
}

function dirOf(values: { dir?: string | boolean | undefined }, io: CliIO): string {
  return resolve(io.cwd, typeof values.dir === "string" ? values.dir : DEFAULT_TRACE_DIR);
}

async function list(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, { dir: { type: "string" } });
  if (positionals.length > 0)
    throw new UsageError(`trace list takes no arguments (got ${positionals[0]})`, "trace");
  const { runs, skipped } = listRuns(traceFiles(dirOf(values, io)), () => ({ noFollow: true }));
  // Run ids, models and statuses come from trace files, which anyone can write.
  io.stdout.write(`${visible(scrub(formatRunList(runs), io), "text")}\n`);
  for (const s of skipped) io.stderr.write(`skipped ${s}\n`);
  return EXIT.ok;
}

async function show(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, { dir: { type: "string" }, json: { type: "boolean" } });
  const ref = positionals[0];
  if (ref === undefined) throw new UsageError("trace show needs a run id or a trace file", "trace");
  const { file, run } = findRun(resolveRef(ref, io), dirOf(values, io));
  const text = values.json
    ? JSON.stringify(new Redactor({ env: io.env }).value(run), null, 2)
    : formatRun(run, { file });
  // The trace holds the model's and the tools' text: no control character reaches the terminal raw.
  io.stdout.write(`${visible(scrub(text, io), "text")}\n`);
  return EXIT.ok;
}

async function view(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, {
    dir: { type: "string" },
    port: { type: "string" },
    evals: { type: "string" },
  });
  const { startViewer } = await import("./server.js");
  const dir = dirOf(values, io);
  const ref = positionals[0];
  const target = ref === undefined ? undefined : findRun(resolveRef(ref, io), dir);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`bad --port ${values.port}`, "trace");
  const evalDir = resolve(io.cwd, values.evals ?? DEFAULT_EVAL_DIR);
  const viewer = await startViewer({ dir, port, evalDir, ...(target && { files: [target.file] }) });
  const style = styleFor(io.stdout, io.env);
  const url = target ? viewer.runUrl(target.run.runId) : viewer.url;
  io.stdout.write(
    `Trace viewer on ${style.bold(url)}\nServing ${dir}${target ? ` and ${target.file}` : ""} (evals: ${evalDir}). Ctrl-C stops it.\n`,
  );
  await new Promise<void>((done) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      done();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  await viewer.close();
  return EXIT.ok;
}

async function replay(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, {
    agent: { type: "string" },
    "from-step": { type: "string" },
    model: { type: "string" },
    trace: { type: "string" },
    "run-tools": { type: "boolean" },
  });
  const file = positionals[0];
  if (values["run-tools"] && values.agent !== undefined)
    throw new UsageError(
      "--run-tools is for a replay without --agent (the module decides its tools)",
      "trace",
    );
  if (file === undefined) throw new UsageError("trace replay needs a trace file", "trace");
  const fromStep = values["from-step"] === undefined ? undefined : Number(values["from-step"]);
  if (fromStep !== undefined && (!Number.isInteger(fromStep) || fromStep < 1)) {
    throw new UsageError(`--from-step must be a step number from 1, not ${values["from-step"]}`, "trace");
  }
  if ((fromStep === undefined) !== (values.model === undefined)) {
    throw new UsageError("a fork needs both --from-step <n> and --model <provider:model>", "trace");
  }
  const { replayTrace } = await import("./replay.js");
  // The fork's live model is named like `run --model`: the same providers, the command's env.
  await import("../cli/providers.js");
  const { resolveModel } = await import("../providers/resolve.js");
  const live = values.model === undefined ? undefined : resolveModel(values.model, io.env);
  const ref = resolveRef(file, io);
  const hash = ref.lastIndexOf("#");
  const all = readTraceEvents(hash > 0 ? ref.slice(0, hash) : ref);
  const runId = hash > 0 ? ref.slice(hash + 1) : all[0]?.runId;
  const agent = await loadReplayAgent(
    values.agent,
    io,
    all.filter((e) => e.runId === runId),
    {
      runTools: values["run-tools"] === true,
      onDemo: (example) =>
        io.stderr.write(
          `A recording of "glassloop demo ${example}": replaying it with that example's agent (its instructions and tools).\n`,
        ),
      onAnswered: (names) =>
        io.stderr.write(
          `Answering ${names.join(", ")} from the recording (not run); --run-tools runs them for real.\n`,
        ),
    },
  );
  const writer =
    values.trace === undefined ? undefined : new TraceWriter({ file: resolve(io.cwd, values.trace) });
  const report = await replayTrace({
    trace: ref,
    agent,
    ...(fromStep !== undefined && { fromStep }),
    ...(live !== undefined && { model: live }),
    ...(writer && { onEvent: writer.onEvent }),
  });
  writer?.close();
  io.stdout.write(`${scrub(formatReplayReport(report, styleFor(io.stdout, io.env)), io)}\n`);
  return report.status === "diverged" ? EXIT.failed : EXIT.ok;
}

/** Traces are scrubbed when written; a trace written by something else is scrubbed here. */
function scrub(text: string, io: CliIO): string {
  return new Redactor({ env: io.env }).text(text);
}

/** A path relative to the command's working directory; run ids pass through. */
function resolveRef(ref: string, io: CliIO): string {
  const hash = ref.lastIndexOf("#");
  const path = hash > 0 ? ref.slice(0, hash) : ref;
  if (!path.endsWith(".jsonl") && !path.includes("/")) return ref;
  return resolve(io.cwd, path) + (hash > 0 ? ref.slice(hash) : "");
}
