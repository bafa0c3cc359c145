/**
 * v0.3's HTTP+JSON spelling: the protobuf JSON of v0.3's `a2a.proto`, which differs from both
 * v0.3's JSON-RPC (`kind` discriminators) and 1.0's: a message's parts are `content`, a data part
 * nests its object (`{ data: { data } }`), a file part is `{ file: { fileWithUri | fileWithBytes,
 * mimeType } }`, "canceled" is `TASK_STATE_CANCELLED`, a send's `blocking` is false unless set,
 * and a push config is named `tasks/<id>/pushNotificationConfigs/<configId>`. Outbound shapes
 * are written from 1.0's (`wire.ts`); inbound ones are turned into 1.0's params, which the
 * methods' schemas then check like any other.
 */
import {
  type AgentCard,
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

type Json = Record<string, unknown>;

const STATE: Record<TaskState, string> = {
  TASK_STATE_SUBMITTED: "TASK_STATE_SUBMITTED",
  TASK_STATE_WORKING: "TASK_STATE_WORKING",
  TASK_STATE_INPUT_REQUIRED: "TASK_STATE_INPUT_REQUIRED",
  TASK_STATE_AUTH_REQUIRED: "TASK_STATE_AUTH_REQUIRED",
  TASK_STATE_COMPLETED: "TASK_STATE_COMPLETED",
  TASK_STATE_FAILED: "TASK_STATE_FAILED",
  TASK_STATE_CANCELED: "TASK_STATE_CANCELLED",
  TASK_STATE_REJECTED: "TASK_STATE_REJECTED",
};

const record = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;

function protoPart(part: Part): Json {
  if (part.text !== undefined) return { text: part.text };
  if (part.url !== undefined || part.raw !== undefined)
    return {
      file: {
        ...(part.url !== undefined ? { fileWithUri: part.url } : { fileWithBytes: part.raw }),
        ...(part.mediaType && { mimeType: part.mediaType }),
      },
    };
  // A proto DataPart holds an object: anything else is wrapped so it is not dropped on the way.
  const data = record(part.data) ?? { value: part.data ?? null };
  return { data: { data } };
}

/** A message in v0.3's proto JSON. */
export function protoMessage(message: Message): Json {
  return {
    messageId: message.messageId,
    ...(message.contextId && { contextId: message.contextId }),
    ...(message.taskId && { taskId: message.taskId }),
    role: message.role,
    content: message.parts.map(protoPart),
    ...(message.metadata && { metadata: message.metadata }),
  };
}

function protoStatus(status: TaskStatus): Json {
  return {
    state: STATE[status.state],
    ...(status.message && { message: protoMessage(status.message) }),
    ...(status.timestamp && { timestamp: status.timestamp }),
  };
}

function protoArtifact(artifact: Artifact): Json {
  return {
    artifactId: artifact.artifactId,
    ...(artifact.name && { name: artifact.name }),
    ...(artifact.description && { description: artifact.description }),
    parts: artifact.parts.map(protoPart),
    ...(artifact.metadata && { metadata: artifact.metadata }),
  };
}

/** A task in v0.3's proto JSON. */
export function protoTask(task: Task): Json {
  return {
    id: task.id,
    contextId: task.contextId,
    status: protoStatus(task.status),
    ...(task.artifacts && { artifacts: task.artifacts.map(protoArtifact) }),
    ...(task.history && { history: task.history.map(protoMessage) }),
    ...(task.metadata && { metadata: task.metadata }),
  };
}

/** A send's result or a stream event in v0.3's proto JSON (status updates say whether they are the last). */
export function protoEvent(event: StreamResponse): Json {
  if ("task" in event) return { task: protoTask(event.task) };
  if ("message" in event) return { message: protoMessage(event.message) };
  if ("statusUpdate" in event) {
    const { taskId, contextId, status, metadata } = event.statusUpdate;
    const final = TERMINAL_STATES.has(status.state) || INTERRUPTED_STATES.has(status.state);
    return {
      statusUpdate: {
        taskId,
        contextId,
        status: protoStatus(status),
        ...(final && { final }),
        ...(metadata && { metadata }),
      },
    };
  }
  const { taskId, contextId, artifact, append, lastChunk } = event.artifactUpdate;
  return {
    artifactUpdate: {
      taskId,
      contextId,
      artifact: protoArtifact(artifact),
      ...(append && { append }),
      ...(lastChunk && { lastChunk }),
    },
  };
}

/** A push config (as `configWire` writes it for v0.3) in v0.3's proto JSON. */
export function protoPushConfig(config: { taskId: string; pushNotificationConfig: { id: string } }): Json {
  return {
    name: `tasks/${config.taskId}/pushNotificationConfigs/${config.pushNotificationConfig.id}`,
    pushNotificationConfig: config.pushNotificationConfig,
  };
}

/** The agent card in v0.3's proto JSON (what `GET /v1/card` answers). */
export function protoCard(card: AgentCard): Json {
  const url = card.url ?? card.supportedInterfaces[0]?.url ?? "";
  return {
    protocolVersion: card.protocolVersion ?? "0.3.0",
    name: card.name,
    description: card.description,
    url,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [
      { url, transport: "JSONRPC" },
      { url, transport: "HTTP+JSON" },
    ],
    ...(card.provider && { provider: card.provider }),
    version: card.version,
    capabilities: {
      streaming: card.capabilities.streaming === true,
      pushNotifications: card.capabilities.pushNotifications === true,
    },
    securitySchemes: card.securitySchemes,
    security: card.securityRequirements,
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills,
    ...(card.supportsAuthenticatedExtendedCard && { supportsAuthenticatedExtendedCard: true }),
  };
}

function partFromProto(value: unknown): Json {
  const part = record(value) ?? {};
  if (part.text !== undefined) return { text: part.text };
  const file = record(part.file);
  if (file) {
    const mediaType = file.mimeType ?? file.mime_type;
    const out: Json = {};
    if (file.fileWithUri !== undefined || file.file_with_uri !== undefined)
      out.url = file.fileWithUri ?? file.file_with_uri;
    else out.raw = file.fileWithBytes ?? file.file_with_bytes ?? "";
    if (mediaType !== undefined) out.mediaType = mediaType;
    return out;
  }
  const data = record(part.data);
  if (data) return { data: data.data ?? null };
  return {};
}

function messageFromProto(value: unknown): unknown {
  const m = record(value);
  if (!m) return value;
  const content = m.content ?? m.parts;
  return {
    messageId: m.messageId ?? m.message_id,
    role: m.role,
    parts: Array.isArray(content) ? content.map(partFromProto) : content,
    ...((m.contextId ?? m.context_id) !== undefined && { contextId: m.contextId ?? m.context_id }),
    ...((m.taskId ?? m.task_id) !== undefined && { taskId: m.taskId ?? m.task_id }),
    ...(m.metadata !== undefined && { metadata: m.metadata }),
  };
}

/** A webhook config from v0.3's proto JSON, in the fields `pushFields` reads. */
export function pushFieldsFromProto(value: unknown): unknown {
  const c = record(value);
  if (!c) return value;
  return {
    ...(c.id !== undefined && c.id !== "" && { id: c.id }),
    url: c.url,
    ...(c.token !== undefined && c.token !== "" && { token: c.token }),
    ...(c.authentication !== undefined && { authentication: c.authentication }),
  };
}

/** A v0.3 proto JSON `SendMessageRequest` as 1.0's `SendMessage` params. */
export function sendParamsFromProto(body: unknown): unknown {
  const b = record(body);
  if (!b) return body;
  const config = record(b.configuration);
  const historyLength = config?.historyLength ?? config?.history_length;
  const push = config?.pushNotification ?? config?.push_notification;
  return {
    message: messageFromProto(b.message ?? b.request),
    configuration: {
      // Proto JSON leaves out a false `blocking`: a send blocks only when it says so.
      returnImmediately: config?.blocking !== true,
      // Proto JSON's 0 is "not set".
      ...(historyLength !== undefined && historyLength !== 0 && { historyLength }),
      ...(push !== undefined && { taskPushNotificationConfig: pushFieldsFromProto(push) }),
    },
    ...(b.metadata !== undefined && { metadata: b.metadata }),
  };
}
