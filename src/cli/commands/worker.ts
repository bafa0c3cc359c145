import { parseArgs } from "node:util";
import type { WorkerModule } from "../../scale/agents.js";
import { type CliIO, type Command, EXIT, UsageError } from "../command.js";
import { importAgentsModule } from "../user-module.js";

const USAGE = `Usage: glassloop worker <worker module> [--postgres url] [--id name] [--queue name]
                        [--concurrency n] [--version v] [--lease-ms n] [--adopt-ms n] [--poll-ms n]

Runs agents for the queue: each run a DBOS workflow in Postgres, finished by another worker if
this one dies (docs/scale-out.md). The module's default export (or its export "worker") is
{ agents: { name: () => AgentConfig } } (see defineWorker in glassloop/scale); the factories
run here, so hidden context and live handles never leave this process.

  --postgres url     the database (default GLASSLOOP_POSTGRES_URL)
  --id name          this worker's id, unique among live workers (default host-pid-random);
                     refused while a live worker holds it
  --queue name       the queue to consume (default glassloop)
  --concurrency n    runs at once per worker (default 4)
  --version v        the application version (default glassloop-scale-2; see docs)
  --lease-ms n       a worker silent this long is dead and its runs are adopted (default 15000)
  --adopt-ms n       how often to look for dead workers (default 3000)
  --poll-ms n        how often to poll the queue (default 1000)

Stops on SIGINT or SIGTERM: finishes its runs (up to 10 s), then gives its id up.`;

/** `glassloop worker <module>`: a scale-out worker. */
const worker: Command = {
  usage: USAGE,
  async run(args, io) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      throw new UsageError((error as Error).message, "worker");
    }
    const file = parsed.positionals[0];
    if (!file) throw new UsageError("worker needs the path of a worker module", "worker");
    const module = await loadWorkerModule(file, io);
    const v = parsed.values;
    const url = v.postgres ?? io.env.GLASSLOOP_POSTGRES_URL;
    if (!url)
      throw new UsageError("worker needs Postgres: --postgres url or GLASSLOOP_POSTGRES_URL", "worker");
    const { startWorker } = await import("../../scale/worker.js");
    const running = await startWorker({
      url,
      module,
      ...(v.id !== undefined && { id: v.id }),
      ...(v.queue !== undefined && { queue: v.queue }),
      ...(v.version !== undefined && { version: v.version }),
      ...(v.concurrency !== undefined && { concurrency: whole(v.concurrency, "--concurrency") }),
      ...(v["lease-ms"] !== undefined && { leaseMs: whole(v["lease-ms"], "--lease-ms") }),
      ...(v["adopt-ms"] !== undefined && { adoptEveryMs: whole(v["adopt-ms"], "--adopt-ms") }),
      ...(v["poll-ms"] !== undefined && { pollMs: whole(v["poll-ms"], "--poll-ms") }),
      // The reason names a run id a client chose: it is printed through the terminal stream.
      onFenced: (reason) => {
        io.stderr.write(`glassloop worker: ${reason}; stopping so the run's new owner alone runs it\n`);
        process.exit(75);
      },
    });
    io.stderr.write(
      `glassloop worker ${running.executorId}: consuming queue ${running.queue} (agents: ${Object.keys(module.agents).join(", ")})\n`,
    );
    await new Promise<void>((done) => {
      const stop = () => done();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    io.stderr.write(`glassloop worker ${running.executorId}: stopping\n`);
    await running.stop();
    return EXIT.ok;
  },
};
export default worker;

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      postgres: { type: "string" },
      id: { type: "string" },
      queue: { type: "string" },
      version: { type: "string" },
      concurrency: { type: "string" },
      "lease-ms": { type: "string" },
      "adopt-ms": { type: "string" },
      "poll-ms": { type: "string" },
    },
  });
}

function whole(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`${flag} must be a positive whole number, not ${JSON.stringify(text)}`, "worker");
  return n;
}

/** Imports a worker module (TypeScript through tsx) and checks its shape. */
export function loadWorkerModule(file: string, io: CliIO): Promise<WorkerModule> {
  return importAgentsModule<WorkerModule>(file, io, "worker", "worker");
}
