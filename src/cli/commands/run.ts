import { parseArgs } from "node:util";
import type { RunResult } from "../../agent/agent-config.js";
import { RunError, runStatusOf } from "../../core/errors.js";
import type { AgentEvent } from "../../core/vocabulary/events.js";
import { ApprovalRequiredError, type PendingApproval } from "../../features/approval/approval.js";
import type { Store } from "../../store/store.js";
import { decideWaitingCalls, lazyTerminal, refusingApprover, terminalApprover } from "../approval.js";
import { type CliIO, type Command, EXIT, UsageError } from "../command.js";
import { exitCodeFor, formatError, redactorFor } from "../failure.js";
import { roundDurations } from "../json-output.js";
import { terminalElicitation } from "../mcp-servers.js";
import { Printer } from "../printer.js";
import { formatUsage, RunRenderer } from "../render.js";
import { AGENT_OPTIONS, type Prepared, prepareAgent } from "../setup.js";
import { visible } from "../visible.js";

const USAGE = `Usage: glassloop run [options] "task"

Runs one task: streams the answer to stdout; tool calls, their results and a usage line go to stderr.
The task can also come on stdin: echo "task" | glassloop run

Options:
  -m, --model provider:model   the model (default: GLASSLOOP_MODEL, glassloop.config.json, a key
                               in the environment, a running Ollama, GLASSLOOP_LOCAL_MODEL)
  -t, --tools a,b              built-in tools: calculator, clock, http_get, files, shell
      --max-steps n            model calls allowed (default 15)
      --max-cost usd           spending limit in US dollars (the model needs a known price)
      --session id             continue the conversation kept under this id (and save this turn)
      --continue               with --session and no task: answer the conversation where it
                               stands (say, a question whose answer failed), adding no message
      --resume runId           continue a run that was killed or paused, from its last checkpoint
      --instructions text      the system prompt
      --root dir               the directory files and shell work in (default: here)
      --json                   print exactly one JSON result object on stdout, nothing else
      --show-prompt            print each exact request body as it is sent (stderr)
      --trace file.jsonl|dir   write every event of the run to this JSONL trace, or to
                               <dir>/<runId>.jsonl for a directory; exit 2 if it cannot be
                               written (default: .glassloop/traces/<runId>.jsonl, keys redacted)
      --no-trace               write no trace
  -y, --yes                    with no model configured, download a small local model without
                               asking (on a terminal glassloop asks first; never without either)
  -h, --help                   this help

Exit codes: 0 done, 1 the run failed (budget, loop, provider), 2 bad usage or configuration,
130 stopped with Ctrl-C.`;

const OPTIONS = {
  ...AGENT_OPTIONS,
  json: { type: "boolean" },
  "show-prompt": { type: "boolean" },
  session: { type: "string" },
  continue: { type: "boolean" },
  resume: { type: "string" },
} as const;

/** What `--json` prints: one object, for success and failure alike. */
export interface JsonResult {
  status: "ok" | "failed" | "budget_exceeded" | "aborted" | "awaiting_approval" | "error";
  /** Calls waiting for a person's decision (status `awaiting_approval`). */
  pending?: PendingApproval[];
  output?: unknown;
  finishedBy?: string;
  runId?: string;
  model?: string;
  error?: { code: string; message: string };
  usage?: RunResult<unknown>["usage"];
  messages?: RunResult<unknown>["messages"];
  trace?: string;
}

/** `glassloop run`: runs one task and streams the answer. */
const run: Command = {
  usage: USAGE,
  async run(args, io) {
    let values: ReturnType<typeof parse>["values"];
    let positionals: string[];
    try {
      ({ values, positionals } = parse(args));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const printer = new Printer(io);
    try {
      return await runTask(values, positionals, io, printer);
    } catch (error) {
      if (!values.json) throw error;
      const code = error instanceof Error && "code" in error ? String(error.code) : "internal";
      printJson(io, { status: "error", error: { code, message: formatError(error, io.env) } });
      return exitCodeFor(error);
    }
  },
};
export default run;

function parse(args: string[]) {
  return parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
}

async function runTask(
  values: ReturnType<typeof parse>["values"],
  positionals: string[],
  io: CliIO,
  printer: Printer,
): Promise<number> {
  const resume = values.resume;
  if (resume !== undefined && (positionals.length > 0 || values.session !== undefined)) {
    throw new UsageError(
      "--resume continues a stored run with its own task and session: give no task or --session",
    );
  }
  const proceed = values.continue === true;
  if (proceed && (values.session === undefined || positionals.length > 0 || resume !== undefined)) {
    throw new UsageError(
      "--continue answers a stored conversation where it stands: give --session id, and no task or --resume",
    );
  }
  const task =
    resume !== undefined || proceed
      ? ""
      : positionals.length > 0
        ? positionals.join(" ")
        : await readStdin(io);
  if (resume === undefined && !proceed && !task.trim())
    throw new UsageError('no task given: glassloop run "what to do" (or --session id --continue)');
  const renderer = new RunRenderer(printer, {
    showPrompt: values["show-prompt"] === true,
    quiet: values.json === true,
  });
  const controller = new AbortController();
  let interrupted = false;
  const onSigint = () => {
    interrupted = true;
    controller.abort(new Error("cancelled with Ctrl-C"));
  };
  const terminal = lazyTerminal(io, onSigint);
  const prepared = await prepareAgent(values, io, {
    store: values.session !== undefined || resume !== undefined,
    ...(resume !== undefined && { resume }),
    mcp: {
      // The configured MCP servers' questions are asked on a terminal; without one none is offered.
      ...(io.stdin.isTTY && {
        onElicitation: terminalElicitation(printer, terminal.asker, { before: () => renderer.pause() }),
      }),
      warn: (message) => printer.note(printer.err.yellow(`! ${message}`)),
    },
  });
  const { agent, choice, tracer } = prepared;
  // On a terminal the user decides each call at once; without one a run that needs a decision
  // pauses in the store (resume it on a terminal), or, with no store, such calls are refused.
  const onApproval = io.stdin.isTTY
    ? terminalApprover(printer, terminal.asker, { before: () => renderer.pause() })
    : prepared.store
      ? undefined
      : refusingApprover(printer);
  if (!values.json) {
    printer.note(printer.err.dim(`model: ${choice.model} (${choice.source})${describeReplay(choice.model)}`));
    if (prepared.storeProblem)
      printer.note(printer.err.yellow(`! runs are not checkpointed: ${prepared.storeProblem}`));
    if (resume) printer.note(printer.err.dim(`resuming ${resume}`));
    if (prepared.toolNote) printer.note(printer.err.yellow(`! ${prepared.toolNote}`));
    if (prepared.agentNote) printer.note(printer.err.dim(prepared.agentNote));
  }
  // On stderr under --json as well: stdout stays the one result, but a lost trace is never silent.
  if (prepared.traceProblem)
    printer.note(printer.err.yellow(`! runs are not traced: ${prepared.traceProblem}`));
  process.on("SIGINT", onSigint);
  const onEvent = (event: AgentEvent) => {
    tracer?.onEvent(event);
    renderer.onEvent(event);
  };
  try {
    const signal = controller.signal;
    let result: RunResult<unknown>;
    if (resume !== undefined) {
      const decisions = await decideWaitingCalls(prepared.store as Store, resume, onApproval, signal);
      result = await agent.resume(resume, {
        stream: true,
        signal,
        onEvent,
        ...decisions,
        ...(prepared.allowNewTools && { allowNewTools: true }),
        ...(onApproval && { onApproval }),
      });
    } else {
      const common = { signal, onEvent, ...(onApproval && { onApproval }) };
      const stream =
        proceed && values.session !== undefined
          ? agent.stream(null, { ...common, session: values.session })
          : agent.stream(task, { ...common, ...(values.session && { session: values.session }) });
      for await (const _ of stream);
      result = await stream.result;
    }
    renderer.close();
    const trace = traceWritten(prepared, printer);
    if (values.json) {
      printJson(io, {
        status: "ok",
        output: result.output,
        finishedBy: result.finishedBy,
        runId: result.runId,
        model: agent.model.id,
        usage: result.usage,
        messages: result.messages,
        ...(trace && { trace }),
      });
      return EXIT.ok;
    }
    // A terminal tool's output (the calculator example's `finish`) is the answer even though no text streamed.
    if (result.finishedBy !== "text" || !renderer.textShown)
      printer.line(visible(printable(result.output), "text"));
    printer.note(printer.err.green(`✓ ${formatUsage(result.usage)}`));
    if (trace) printer.note(printer.err.dim(`trace: ${trace}`));
    return EXIT.ok;
  } catch (error) {
    renderer.close();
    if (!(error instanceof RunError)) throw error;
    const trace = traceWritten(prepared, printer);
    const pending = error instanceof ApprovalRequiredError ? error.pending : undefined;
    // Ctrl-C is the user's choice, not a failure: 130, as shells expect of an interrupted program.
    const failed = interrupted && error.code === "aborted" ? EXIT.interrupted : EXIT.failed;
    if (values.json) {
      printJson(io, {
        status: runStatusOf(error),
        error: { code: error.code, message: formatError(error, io.env) },
        ...(pending && { pending }),
        runId: error.runId,
        model: agent.model.id,
        usage: error.usage,
        messages: error.messages,
        ...(trace && { trace }),
      });
      return failed;
    }
    if (pending) {
      printer.note(
        printer.err.yellow(`⏸ paused: ${plural(pending.length, "call needs", "calls need")} approval`),
      );
      for (const call of pending) printer.note(`    ${visible(call.toolName)} ${visible(call.arguments)}`);
      printer.note(`  decide on a terminal: glassloop run --resume ${error.runId}`);
      return EXIT.failed;
    }
    printer.note(printer.err.red(`✗ run failed: ${formatError(error, io.env)}`));
    printer.note(printer.err.dim(`  ${formatUsage(error.usage)}`));
    if (trace) printer.note(printer.err.dim(`trace: ${trace}`));
    return failed;
  } finally {
    process.off("SIGINT", onSigint);
    await agent.close();
    terminal.close();
  }
}

/** The trace file, when every write of it succeeded; each failed write is said on stderr. */
function traceWritten(prepared: Prepared, printer: Printer): string | undefined {
  for (const failure of prepared.traceFailures)
    printer.note(printer.err.yellow(`! trace not written: ${failure}`));
  return prepared.traceFailures.length > 0 ? undefined : prepared.tracer?.files[0];
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The one result object, scrubbed by the same rule as human output (a key echoed into the answer included). */
function printJson(io: CliIO, given: JsonResult): void {
  io.stdout.write(`${redactorFor(io.env).stringify(roundDurations(given))}\n`);
}

/** An output as the line a person reads: text as is, anything else as JSON. */
export function printable(output: unknown): string {
  return typeof output === "string" ? output : JSON.stringify(output);
}

/** A reminder that replayed answers are not live ones. */
export function describeReplay(model: string): string {
  return model.startsWith("replay:") ? "; the model's answers are replayed from a recording" : "";
}

async function readStdin(io: CliIO): Promise<string> {
  if (io.stdin.isTTY) return "";
  const parts: Buffer[] = [];
  for await (const chunk of io.stdin)
    parts.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(parts).toString("utf8").trim();
}
