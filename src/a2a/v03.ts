/**
 * Spec 1.0 shapes written in v0.3's spelling, for callers that still speak it (`message/send`,
 * `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`): `kind` discriminators,
 * lower-case states and roles, `{ kind: "file", file }` parts, and `final` on status updates.
 */
import {
  type Artifact,
  INTERRUPTED_STATES,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskState,
  type TaskStatus,
  TERMINAL_STATES,
} from "./wire.js";

const STATE_V03: Record<TaskState, string> = {
  TASK_STATE_SUBMITTED: "submitted",
  TASK_STATE_WORKING: "working",
  TASK_STATE_INPUT_REQUIRED: "input-required",
  TASK_STATE_AUTH_REQUIRED: "auth-required",
  TASK_STATE_COMPLETED: "completed",
  TASK_STATE_FAILED: "failed",
  TASK_STATE_CANCELED: "canceled",
  TASK_STATE_REJECTED: "rejected",
};

/** A part in v0.3's spelling. */
export function partV03(part: Part): Record<string, unknown> {
  const meta = part.metadata ? { metadata: part.metadata } : {};
  if (part.text !== undefined) return { kind: "text", text: part.text, ...meta };
  if (part.url !== undefined || part.raw !== undefined) {
    const file: Record<string, unknown> = part.url !== undefined ? { uri: part.url } : { bytes: part.raw };
    if (part.mediaType) file.mimeType = part.mediaType;
    if (part.filename) file.name = part.filename;
    return { kind: "file", file, ...meta };
  }
  return { kind: "data", data: part.data ?? null, ...meta };
}

/** A message in v0.3's spelling. */
export function messageV03(message: Message): Record<string, unknown> {
  return {
    kind: "message",
    messageId: message.messageId,
    role: message.role === "ROLE_USER" ? "user" : "agent",
    parts: message.parts.map(partV03),
    ...(message.contextId && { contextId: message.contextId }),
    ...(message.taskId && { taskId: message.taskId }),
    ...(message.metadata && { metadata: message.metadata }),
  };
}

function statusV03(status: TaskStatus): Record<string, unknown> {
  return {
    state: STATE_V03[status.state],
    ...(status.message && { message: messageV03(status.message) }),
    ...(status.timestamp && { timestamp: status.timestamp }),
  };
}

function artifactV03(artifact: Artifact): Record<string, unknown> {
  return { ...artifact, parts: artifact.parts.map(partV03) };
}

/** A task in v0.3's spelling. */
export function taskV03(task: Task): Record<string, unknown> {
  return {
    kind: "task",
    id: task.id,
    contextId: task.contextId,
    status: statusV03(task.status),
    ...(task.artifacts && { artifacts: task.artifacts.map(artifactV03) }),
    ...(task.history && { history: task.history.map(messageV03) }),
    ...(task.metadata && { metadata: task.metadata }),
  };
}

/** A stream event in v0.3's spelling: a status update says whether it is the last (`final`). */
export function streamV03(event: StreamResponse): Record<string, unknown> {
  if ("task" in event) return taskV03(event.task);
  if ("message" in event) return messageV03(event.message);
  if ("statusUpdate" in event) {
    const { taskId, contextId, status, metadata } = event.statusUpdate;
    const final = TERMINAL_STATES.has(status.state) || INTERRUPTED_STATES.has(status.state);
    return {
      kind: "status-update",
      taskId,
      contextId,
      status: statusV03(status),
      final,
      ...(metadata && { metadata }),
    };
  }
  const { artifact, ...rest } = event.artifactUpdate;
  return { kind: "artifact-update", ...rest, artifact: artifactV03(artifact) };
}
