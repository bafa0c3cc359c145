/**
 * Zod schemas for what glassloop reads from an A2A peer, in either spelling (spec 1.0 and v0.3):
 * a server reads the caller's params, a client reads the remote agent's answers. Both are
 * untrusted: every string is bounded by the body cap before it gets here, and shapes are checked
 * before anything is used. Parsed values come out in 1.0's shape (`wire.ts`).
 */
import { z } from "zod";
import type { Artifact, Message, Part, Task, TaskState, TaskStatus } from "./wire.js";

const V03_STATES: Record<string, TaskState> = {
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  "auth-required": "TASK_STATE_AUTH_REQUIRED",
  completed: "TASK_STATE_COMPLETED",
  failed: "TASK_STATE_FAILED",
  canceled: "TASK_STATE_CANCELED",
  cancelled: "TASK_STATE_CANCELED",
  rejected: "TASK_STATE_REJECTED",
};

/** A state in either spelling; an unknown one reads as failed (a peer cannot invent a state we trust). */
export function stateOf(value: unknown): TaskState {
  if (typeof value === "string") {
    if (value.startsWith("TASK_STATE_") && value !== "TASK_STATE_UNSPECIFIED") {
      const known = Object.values(V03_STATES) as string[];
      if (known.includes(value)) return value as TaskState;
    }
    const mapped = V03_STATES[value];
    if (mapped) return mapped;
  }
  return "TASK_STATE_FAILED";
}

const metadata = z.record(z.string(), z.unknown()).optional();

const part = z
  .looseObject({
    kind: z.string().optional(),
    text: z.string().optional(),
    data: z.unknown().optional(),
    url: z.string().optional(),
    raw: z.string().optional(),
    mediaType: z.string().optional(),
    filename: z.string().optional(),
    file: z
      .looseObject({
        uri: z.string().optional(),
        bytes: z.string().optional(),
        mimeType: z.string().optional(),
        name: z.string().optional(),
      })
      .optional(),
    metadata,
  })
  .transform((p): Part => {
    const out: Part = {};
    if (p.text !== undefined) out.text = p.text;
    else if (p.kind === "data" || p.data !== undefined) out.data = p.data ?? null;
    else if (p.file?.uri !== undefined || p.url !== undefined) out.url = (p.file?.uri ?? p.url) as string;
    else if (p.file?.bytes !== undefined || p.raw !== undefined) out.raw = (p.file?.bytes ?? p.raw) as string;
    const mediaType = p.mediaType ?? p.file?.mimeType;
    if (mediaType) out.mediaType = mediaType;
    const filename = p.filename ?? p.file?.name;
    if (filename) out.filename = filename;
    if (p.metadata) out.metadata = p.metadata;
    return out;
  });

const role = z.string().transform((r, ctx): Message["role"] => {
  if (r === "ROLE_USER" || r === "user") return "ROLE_USER";
  if (r === "ROLE_AGENT" || r === "agent") return "ROLE_AGENT";
  ctx.addIssue({ code: "custom", message: "role must be ROLE_USER or ROLE_AGENT (user or agent in v0.3)" });
  return z.NEVER;
});

/** A message in either spelling. */
export const messageSchema = z
  .looseObject({
    messageId: z.string().min(1).max(200),
    role,
    parts: z.array(part).max(1000),
    contextId: z.string().max(200).optional(),
    taskId: z.string().max(200).optional(),
    metadata,
  })
  .transform((m): Message => {
    const out: Message = { messageId: m.messageId, role: m.role, parts: m.parts };
    if (m.contextId) out.contextId = m.contextId;
    if (m.taskId) out.taskId = m.taskId;
    if (m.metadata) out.metadata = m.metadata;
    return out;
  });

const status = z
  .looseObject({ state: z.unknown(), message: messageSchema.optional(), timestamp: z.string().optional() })
  .transform((s): TaskStatus => {
    const out: TaskStatus = { state: stateOf(s.state) };
    if (s.message) out.message = s.message;
    if (s.timestamp) out.timestamp = s.timestamp;
    return out;
  });

const artifact = z
  .looseObject({
    artifactId: z.string().max(200),
    name: z.string().optional(),
    description: z.string().optional(),
    parts: z.array(part).max(10_000),
    metadata,
  })
  .transform((a): Artifact => {
    const out: Artifact = { artifactId: a.artifactId, parts: a.parts };
    if (a.name) out.name = a.name;
    if (a.description) out.description = a.description;
    if (a.metadata) out.metadata = a.metadata;
    return out;
  });

/** A task in either spelling. */
export const taskSchema = z
  .looseObject({
    id: z.string().min(1).max(200),
    contextId: z.string().max(200).default(""),
    status,
    artifacts: z.array(artifact).max(10_000).optional(),
    history: z.array(messageSchema).max(10_000).optional(),
    metadata,
  })
  .transform((t): Task => {
    const out: Task = { id: t.id, contextId: t.contextId, status: t.status };
    if (t.artifacts) out.artifacts = t.artifacts;
    if (t.history) out.history = t.history;
    if (t.metadata) out.metadata = t.metadata;
    return out;
  });

const statusUpdate = z.looseObject({
  taskId: z.string().max(200),
  contextId: z.string().max(200).default(""),
  status,
  final: z.boolean().optional(),
  metadata,
});
const artifactUpdate = z.looseObject({
  taskId: z.string().max(200),
  contextId: z.string().max(200).default(""),
  artifact,
  append: z.boolean().optional(),
  lastChunk: z.boolean().optional(),
});

/** One result of a send or one event of a stream, read from either spelling. */
export type PeerEvent =
  | { kind: "task"; task: Task }
  | { kind: "message"; message: Message }
  | {
      kind: "status";
      taskId: string;
      contextId: string;
      status: TaskStatus;
      metadata?: Record<string, unknown>;
    }
  | { kind: "artifact"; taskId: string; artifact: Artifact; append: boolean };

/** Reads a `SendMessage` result or a stream event (1.0's one-of keys, or v0.3's `kind`). */
export function peerEventOf(result: unknown): PeerEvent | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  const r = result as Record<string, unknown>;
  const pick = (v1: string, v03: string): unknown => (v1 in r ? r[v1] : r.kind === v03 ? r : undefined);
  const task = pick("task", "task");
  if (task !== undefined) {
    const parsed = taskSchema.safeParse(task);
    return parsed.success ? { kind: "task", task: parsed.data } : undefined;
  }
  const message = pick("message", "message");
  if (message !== undefined) {
    const parsed = messageSchema.safeParse(message);
    return parsed.success ? { kind: "message", message: parsed.data } : undefined;
  }
  const su = pick("statusUpdate", "status-update");
  if (su !== undefined) {
    const parsed = statusUpdate.safeParse(su);
    return parsed.success
      ? {
          kind: "status",
          taskId: parsed.data.taskId,
          contextId: parsed.data.contextId,
          status: parsed.data.status,
          ...(parsed.data.metadata && { metadata: parsed.data.metadata }),
        }
      : undefined;
  }
  const au = pick("artifactUpdate", "artifact-update");
  if (au !== undefined) {
    const parsed = artifactUpdate.safeParse(au);
    return parsed.success
      ? {
          kind: "artifact",
          taskId: parsed.data.taskId,
          artifact: parsed.data.artifact,
          append: parsed.data.append === true,
        }
      : undefined;
  }
  return undefined;
}

/** A push-notification config's fields as a caller sends them (checked further in `server/push-config.ts`). */
export const pushFields = z.looseObject({
  id: z.string().max(128).optional(),
  url: z.string().min(1).max(2048),
  token: z.string().max(512).optional(),
  authentication: z
    .looseObject({
      scheme: z.string().max(64).optional(),
      schemes: z.array(z.string().max(64)).max(10).optional(),
      credentials: z.string().max(4096).optional(),
    })
    .optional(),
});

/** `SendMessage` / `message/send` params. */
export const sendParams = z.looseObject({
  message: messageSchema,
  configuration: z
    .looseObject({
      returnImmediately: z.boolean().optional(),
      blocking: z.boolean().optional(),
      historyLength: z.number().int().min(0).max(10_000).optional(),
      acceptedOutputModes: z.array(z.string().max(200)).max(100).optional(),
      /** 1.0: a push-notification config for the new task. */
      taskPushNotificationConfig: pushFields.optional(),
      /** v0.3's name for it. */
      pushNotificationConfig: pushFields.optional(),
    })
    .optional(),
  metadata,
});

/** `GetTask` / `tasks/get` params. */
export const getParams = z.looseObject({
  id: z.string().min(1).max(200),
  historyLength: z.number().int().min(0).max(10_000).optional(),
});

/** `CancelTask`, `SubscribeToTask` and their v0.3 names. */
export const idParams = z.looseObject({ id: z.string().min(1).max(200) });

/** `ListTasks` params (spec 1.0; v0.3 has no such method). */
export const listParams = z.looseObject({
  contextId: z.string().max(200).optional(),
  status: z.string().max(64).optional(),
  pageSize: z.number().int().min(1).max(100).optional(),
  pageToken: z.string().max(1000).optional(),
  historyLength: z.number().int().min(0).max(10_000).optional(),
  statusTimestampAfter: z.string().max(64).optional(),
  includeArtifacts: z.boolean().optional(),
});
