/**
 * A peer's task folded from its events (a snapshot, status updates, artifacts, or a plain message
 * instead of a task), with the characters it holds kept under the client's cap. What the peer
 * says the task spent is taken only when it passes the rule for reported numbers.
 */
import type { RunUsage } from "../../core/vocabulary/usage.js";
import { checkedRunUsage } from "../../models/usage-check.js";
import type { PeerEvent } from "../schemas.js";
import { type Artifact, INTERRUPTED_STATES, type Part, type TaskState, TERMINAL_STATES } from "../wire.js";
import { A2APeerError } from "./peer-error.js";

/** A task as the peer reported it, bounded. */
export interface PeerTask {
  taskId: string;
  contextId: string;
  state: TaskState;
  /** The text of the status message (the agent's last word, or its question). */
  statusText: string;
  /** Data parts of the status message (e.g. what an input request asks about). */
  statusData: unknown[];
  artifacts: Artifact[];
  /** A reply that was a message, not a task (a peer may answer without a task). */
  message?: Part[];
  /**
   * What the peer says the task spent (A2A has no field for it: glassloop peers put their run's
   * usage in the task's metadata), when the report passes the rule for reported numbers; a peer's
   * word, never checked against anything else.
   */
  usage?: RunUsage;
}

const sizeOf = (part: Part) =>
  (part.text?.length ?? 0) +
  (part.data !== undefined ? JSON.stringify(part.data).length : 0) +
  (part.url?.length ?? 0) +
  (part.raw?.length ?? 0);

/** A task folded from its events, with the artifacts' size held under the cap. */
export class PeerTaskFold {
  /** The task so far; undefined until the first event. */
  task: PeerTask | undefined;
  #chars = 0;
  constructor(private readonly maxChars: number) {}

  /** Whether the task has ended, waits for input, or was answered by a message instead. */
  settled(): boolean {
    return (
      this.task !== undefined &&
      (this.task.message !== undefined ||
        TERMINAL_STATES.has(this.task.state) ||
        INTERRUPTED_STATES.has(this.task.state))
    );
  }

  /**
   * Folds one event in; true when the task has settled (the stream may stop). A task at the head
   * of a stream is a snapshot from before this message (an answered question still reads
   * input-required there), so in a stream only its status updates, or an end, settle it.
   */
  apply(event: PeerEvent, streamed = false): boolean {
    if (event.kind === "message") {
      this.#count(event.message.parts);
      this.task = {
        taskId: event.message.taskId ?? "",
        contextId: event.message.contextId ?? "",
        state: "TASK_STATE_COMPLETED",
        statusText: "",
        statusData: [],
        artifacts: [],
        message: event.message.parts,
      };
      return true;
    }
    if (event.kind === "task") {
      this.#chars = 0;
      const artifacts = event.task.artifacts ?? [];
      for (const a of artifacts) this.#count(a.parts);
      this.task = {
        taskId: event.task.id,
        contextId: event.task.contextId,
        state: event.task.status.state,
        ...statusOf(event.task.status.message?.parts),
        artifacts,
      };
      const usage = reportedUsage(event.task.metadata);
      if (usage) this.task.usage = usage;
      if (event.task.status.message) this.#count(event.task.status.message.parts);
      return streamed ? TERMINAL_STATES.has(event.task.status.state) : this.settled();
    }
    const task = this.task ?? {
      taskId: event.taskId,
      contextId: "",
      state: "TASK_STATE_WORKING" as TaskState,
      statusText: "",
      statusData: [],
      artifacts: [],
    };
    this.task = task;
    if (event.kind === "status") {
      task.state = event.status.state;
      const usage = reportedUsage(event.metadata);
      if (usage) task.usage = usage;
      // Working updates stream progress; only a settled status's message is the agent's word.
      if (TERMINAL_STATES.has(task.state) || INTERRUPTED_STATES.has(task.state)) {
        const parts = event.status.message?.parts;
        if (parts) this.#count(parts);
        Object.assign(task, statusOf(parts));
      }
      return this.settled();
    }
    this.#count(event.artifact.parts);
    const existing = task.artifacts.find((a) => a.artifactId === event.artifact.artifactId);
    if (existing && event.append) existing.parts.push(...event.artifact.parts);
    else if (existing) existing.parts = event.artifact.parts;
    else task.artifacts.push(event.artifact);
    return false;
  }

  #count(parts: readonly Part[]): void {
    for (const part of parts) this.#chars += sizeOf(part);
    if (this.#chars > this.maxChars)
      throw new A2APeerError(
        "too_large",
        `the task's artifacts and messages are larger than ${this.maxChars} characters`,
      );
  }
}

function statusOf(parts: readonly Part[] | undefined): { statusText: string; statusData: unknown[] } {
  return {
    statusText: (parts ?? []).flatMap((p) => (p.text !== undefined ? [p.text] : [])).join("\n"),
    statusData: (parts ?? []).flatMap((p) => (p.data !== undefined ? [p.data] : [])),
  };
}

/** A usage report in a task's or an update's metadata, if it is one and passes the check. */
function reportedUsage(metadata: Record<string, unknown> | undefined): RunUsage | undefined {
  const usage = metadata?.usage;
  if (typeof usage !== "object" || usage === null) return undefined;
  try {
    return checkedRunUsage(usage as RunUsage, "the A2A agent");
  } catch {
    // Impossible numbers (negative, fractional, cached over input) are no report at all.
    return undefined;
  }
}
