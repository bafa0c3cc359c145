import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { AgentEvent } from "../../core/vocabulary/events.js";
import type { ScaleEvent } from "../../scale/events.js";
import { type Command, EXIT, UsageError } from "../command.js";
import { redactorFor } from "../failure.js";
import { visible } from "../visible.js";

const USAGE = `Usage: glassloop enqueue <agent> <input...> [--session id] [--follow] [--json]
                         [--trace dir] [--postgres url] [--queue name] [--run-id id]

Enqueues a run of a worker module's agent (see glassloop worker) and prints its run id. With
--follow it prints the run's events as workers write them, each tool call with the worker that
ran it, then the answer; the exit code is the run's (0 ok, 1 failed). --json prints the outcome
as one JSON object instead.

  --session id       a conversation in the Postgres store: loaded, and this turn saved
  --trace dir        also write the run's events to <dir>/<run id>.jsonl (glassloop trace view
                     shows it), each event with the worker that ran it
  --postgres url     the database (default GLASSLOOP_POSTGRES_URL)
  --queue name       the queue (default glassloop)
  --run-id id        the run's id (default run_<uuid>); enqueuing an id again follows that run`;

/** `glassloop enqueue <agent> <input>`: a run for the scale-out workers. */
const enqueue: Command = {
  usage: USAGE,
  async run(args, io) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      throw new UsageError((error as Error).message, "enqueue");
    }
    const [agent, ...words] = parsed.positionals;
    const input = words.join(" ");
    if (!agent || input === "")
      throw new UsageError("enqueue needs an agent name and the run's input", "enqueue");
    const v = parsed.values;
    const url = v.postgres ?? io.env.GLASSLOOP_POSTGRES_URL;
    if (!url)
      throw new UsageError("enqueue needs Postgres: --postgres url or GLASSLOOP_POSTGRES_URL", "enqueue");
    const { ScaleClient } = await import("../../scale/client.js");
    const client = await ScaleClient.connect({ url, ...(v.queue !== undefined && { queue: v.queue }) });
    try {
      const handle = await client.enqueue(agent, input, {
        ...(v.session !== undefined && { session: v.session }),
        ...(v["run-id"] !== undefined && { runId: v["run-id"] }),
      });
      const trace = v.trace !== undefined ? await traceWriter(resolve(io.cwd, v.trace)) : undefined;
      if (!v.follow && !v.json && !trace) {
        io.stdout.write(`${handle.runId}\n`);
        return EXIT.ok;
      }
      if (trace && v.json) for await (const item of handle.events()) trace.onEvent(withWorker(item));
      if (!v.json) {
        io.stderr.write(`run ${handle.runId} enqueued\n`);
        let worker: string | undefined;
        for await (const item of handle.events()) {
          const { event } = item;
          trace?.onEvent(withWorker(item));
          if (item.worker !== worker && event.type === "step_start") {
            worker = item.worker;
            io.stderr.write(`[worker ${visible(worker, "text")}]\n`);
          }
          if (event.type === "tool_call")
            io.stderr.write(`  ${visible(event.toolName, "text")}(${visible(event.arguments, "text")})\n`);
          if (event.type === "tool_result")
            io.stderr.write(`  -> ${visible(event.content.slice(0, 200), "text")}\n`);
        }
      }
      trace?.close();
      if (trace) io.stderr.write(`trace: ${trace.pathOf(handle.runId)}\n`);
      const outcome = await handle.result();
      if (v.json) io.stdout.write(`${redactorFor(io.env).stringify({ runId: handle.runId, ...outcome })}\n`);
      else if (outcome.status === "ok")
        io.stdout.write(
          `${visible(typeof outcome.output === "string" ? outcome.output : JSON.stringify(outcome.output), "text")}\n`,
        );
      else
        io.stderr.write(
          `run ${handle.runId} ended ${outcome.status}: ${visible(outcome.error.message, "text")}\n`,
        );
      return outcome.status === "ok" ? EXIT.ok : EXIT.failed;
    } finally {
      await client.close();
    }
  },
};
export default enqueue;

async function traceWriter(dir: string) {
  const { TraceWriter } = await import("../../trace/writer.js");
  return new TraceWriter({ dir });
}

/** The event as a trace line, with the worker that ran it (the viewer ignores what it does not know). */
function withWorker(item: ScaleEvent): AgentEvent {
  const line: AgentEvent & { worker: string } = { ...item.event, worker: item.worker };
  return line;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      postgres: { type: "string" },
      queue: { type: "string" },
      session: { type: "string" },
      "run-id": { type: "string" },
      follow: { type: "boolean" },
      json: { type: "boolean" },
      trace: { type: "string" },
    },
  });
}
