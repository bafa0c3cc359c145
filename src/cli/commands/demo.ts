import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { RunError } from "../../core/errors.js";
import { packageRoot } from "../../core/package-root.js";
import type { AgentEvent } from "../../core/vocabulary/events.js";
import { ReplayModel } from "../../providers/replay.js";
import { calculatorTool } from "../../tools/builtin/calculator.js";
import { DEFAULT_TRACE_DIR, TraceWriter } from "../../trace/writer.js";
import { type CliIO, type Command, EXIT, UsageError } from "../command.js";
import { type DemoScenario, SCENARIOS } from "../demo/scenarios.js";
import { formatError } from "../failure.js";
import { Printer } from "../printer.js";
import { formatUsage, RunRenderer } from "../render.js";
import { printable } from "./run.js";

/** The example with no recording: the calculator tool itself refusing code, no model involved. */
const REFUSAL = { name: "refusal", title: "code where a number belongs: the calculator tool refuses it" };

const USAGE = `Usage: glassloop demo [options] [example...]

Runs glassloop's worked examples through the real agent loop and the real tools, offline. The model's answers are replayed from recordings (recordings/*.jsonl): no
network, no API key. A request that differs from the recorded one stops the replay and says where.
Each run is traced to ${DEFAULT_TRACE_DIR}/ like "glassloop run", so "glassloop trace list" and
"glassloop trace view" show it next.

Examples: ${[...SCENARIOS.map((s) => s.name), REFUSAL.name].join(", ")}

Options:
  --list               list the examples
  --show-prompt        print each request body the agent makes
  --trace file.jsonl   write every event to this JSONL trace instead
  --no-trace           write no trace
  --recordings dir     read recordings from dir instead`;

/** Where the shipped recordings are, from the sources and the bundles alike. */
export const RECORDINGS_DIR = join(packageRoot(), "recordings");

/** Input that an `eval()`-based calculator would run as code, shown refused by the real calculator tool. */
const INJECTIONS = ["__import__('os').system('rm -rf /')", "process.exit()", "(200 + 10) * 2"];

/** `glassloop demo`: the worked examples, offline, with replayed model answers. */
const demo: Command = {
  usage: USAGE,
  async run(args, io) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const { values, positionals } = parsed;
    const printer = new Printer(io);
    if (values.list) {
      for (const s of [...SCENARIOS, REFUSAL]) printer.line(`${s.name.padEnd(20)} ${s.title}`);
      return EXIT.ok;
    }
    const unknown = positionals.filter(
      (name) => name !== REFUSAL.name && !SCENARIOS.some((s) => s.name === name),
    );
    if (unknown.length > 0) {
      throw new UsageError(`no example named ${unknown.join(", ")}; run "glassloop demo --list"`);
    }
    const chosen =
      positionals.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => positionals.includes(s.name));
    const dir = values.recordings ?? RECORDINGS_DIR;
    const traceFailures = new Set<string>();
    const tracer = values["no-trace"]
      ? undefined
      : new TraceWriter({
          ...(values.trace
            ? { file: resolve(io.cwd, values.trace) }
            : { dir: join(io.cwd, DEFAULT_TRACE_DIR) }),
          redaction: { env: io.env },
          onError: (error, path) => traceFailures.add(`cannot write ${path}: ${error.message}`),
        });
    const e = printer.err;
    printer.note(e.bold("glassloop demo: worked examples, offline."));
    printer.note(
      "The agent loop, the tools and every event are real; the model is not. Its answers are REPLAYED\n" +
        `from recordings in ${shown(io, dir)}, and a request that differs from the recorded one stops the replay.`,
    );
    let failures = 0;
    const refusal = positionals.length === 0 || positionals.includes(REFUSAL.name);
    const total = chosen.length + (refusal ? 1 : 0);
    for (const [i, scenario] of chosen.entries()) {
      const ok = await play(
        scenario,
        `[${i + 1}/${total}]`,
        join(dir, `${scenario.name}.jsonl`),
        io,
        printer,
        {
          showPrompt: values["show-prompt"] === true,
          ...(tracer && { tracer }),
        },
      );
      if (!ok) failures++;
    }
    if (refusal) await refuseCode(printer, `[${total}/${total}]`);
    printer.note("");
    if (failures > 0) {
      printer.note(e.red(`${failures} of ${chosen.length} replays did not match their recordings.`));
      return EXIT.failed;
    }
    printer.note(
      e.green(
        chosen.length === 0
          ? "Done: the calculator tool refused every expression that is not arithmetic."
          : chosen.length === 1
            ? "Done: 1 run replayed through the real loop and tools, matching its recording."
            : `Done: ${chosen.length} runs replayed through the real loop and tools, each matching its recording.`,
      ),
    );
    printer.note(
      e.dim(
        'With a model of your own: glassloop run --tools calculator "Add 200 and 10, then multiply by 2"\n' +
          "(from a clone of the repository: npm run glassloop -- run ...)",
      ),
    );
    // A trace that could not be written is said, once; the demo itself still ran.
    for (const failure of traceFailures) printer.note(e.yellow(`! trace not written: ${failure}`));
    if (tracer && tracer.files.length > 0 && traceFailures.size === 0) {
      printer.note(
        e.dim(
          values.trace
            ? `trace: ${tracer.files[0]}`
            : `traces: ${shown(io, join(io.cwd, DEFAULT_TRACE_DIR))} (see them: glassloop trace list, glassloop trace view)`,
        ),
      );
    }
    return EXIT.ok;
  },
};
export default demo;

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      list: { type: "boolean" },
      "show-prompt": { type: "boolean" },
      trace: { type: "string" },
      "no-trace": { type: "boolean" },
      recordings: { type: "string" },
    },
  });
}

async function play(
  scenario: DemoScenario,
  counter: string,
  file: string,
  io: CliIO,
  printer: Printer,
  options: { showPrompt: boolean; tracer?: TraceWriter },
): Promise<boolean> {
  const e = printer.err;
  printer.note("");
  printer.note(e.bold(`━━ ${counter} ${scenario.title}`));
  let model: ReplayModel;
  try {
    model = ReplayModel.fromFile(file);
  } catch (error) {
    printer.note(e.red(`✗ ${formatError(error, io.env)}`));
    return false;
  }
  printer.note(`   model: ${e.yellow("replayed")} answers of ${model.recordedModel}: ${scenario.provenance}`);
  printer.note(`   task:  ${scenario.input}`);
  const renderer = new RunRenderer(printer, { showPrompt: options.showPrompt, quiet: false });
  const onEvent = (event: AgentEvent) => {
    options.tracer?.onEvent(event);
    renderer.onEvent(event);
  };
  try {
    const stream = scenario.agent(model).stream(scenario.input, { onEvent });
    for await (const _ of stream);
    const result = await stream.result;
    renderer.close();
    if (result.finishedBy !== "text" || !renderer.textShown) printer.line(printable(result.output));
    printer.note(e.green(`✓ ${formatUsage(result.usage)} (replayed: no tokens spent)`));
    return true;
  } catch (error) {
    renderer.close();
    if (!(error instanceof RunError)) throw error;
    printer.note(e.red(`✗ ${formatError(error, io.env)}`));
    return false;
  }
}

/** A calculator built on eval() would run this input as code; here the real calculator tool meets it. */
async function refuseCode(printer: Printer, counter: string): Promise<void> {
  const e = printer.err;
  printer.note("");
  printer.note(e.bold(`━━ ${counter} ${REFUSAL.title}`));
  printer.note("   (the tool called directly, no model involved)");
  const calculator = calculatorTool();
  const options = { signal: new AbortController().signal } as Parameters<typeof calculator.run>[1];
  for (const expression of INJECTIONS) {
    printer.note(`${e.cyan("→")} ${e.bold("calculator")} ${e.dim(JSON.stringify({ expression }))}`);
    try {
      printer.note(`  ${e.green("←")} ${await calculator.run({ expression }, options)}`);
    } catch (error) {
      printer.note(`  ${e.red("✗ refused:")} ${(error as Error).message}`);
    }
  }
}

function shown(io: CliIO, dir: string): string {
  const rel = relative(io.cwd, dir);
  return rel && !rel.startsWith("..") ? `${rel}/` : dir;
}
