import { GlassloopError } from "../core/errors.js";

/** A worker was started with the executor id of a worker whose lease is still live: refused, never shared. */
export class WorkerIdTakenError extends GlassloopError {
  declare readonly code: "worker_id_taken";
  readonly executorId: string;
  constructor(executorId: string, holder: { pid: number; host: string; leaseLeftMs: number }) {
    super(
      "worker_id_taken",
      `Worker id ${JSON.stringify(executorId)} is held by a live worker (pid ${holder.pid} on ${holder.host}; its lease runs ${Math.max(0, Math.round(holder.leaseLeftMs))} ms more). Two live workers with one id would run the same steps twice: give this worker another id, or wait until the other one is gone.`,
    );
    this.executorId = executorId;
  }
}

/** The scale-out client or worker was asked for something that does not exist (an agent, a run, a module). */
export class ScaleUnknownError extends GlassloopError {
  declare readonly code: "scale_unknown";
  constructor(message: string) {
    super("scale_unknown", message);
  }
}
