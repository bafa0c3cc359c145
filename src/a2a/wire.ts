/**
 * The A2A wire shapes glassloop reads and writes, as spec 1.0 puts them in JSON (the protobuf
 * JSON mapping: `{ text }` / `{ data }` parts, `TASK_STATE_*` and `ROLE_*` enums, one-of results
 * such as `{ task }` or `{ statusUpdate }`). v0.3's shapes are converted at the edge (`v03.ts`).
 */

/** A task's state in spec 1.0's spelling. */
export type TaskState =
  | "TASK_STATE_SUBMITTED"
  | "TASK_STATE_WORKING"
  | "TASK_STATE_INPUT_REQUIRED"
  | "TASK_STATE_AUTH_REQUIRED"
  | "TASK_STATE_COMPLETED"
  | "TASK_STATE_FAILED"
  | "TASK_STATE_CANCELED"
  | "TASK_STATE_REJECTED";

/** States after which a task changes no more. */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
]);

/** States in which a task waits for its caller. */
export const INTERRUPTED_STATES: ReadonlySet<TaskState> = new Set([
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
]);

/** One piece of a message or artifact: text, JSON data, or a file by URL or bytes. */
export interface Part {
  text?: string;
  data?: unknown;
  url?: string;
  /** Base64 bytes. */
  raw?: string;
  mediaType?: string;
  filename?: string;
  metadata?: Record<string, unknown>;
}

/** One turn of communication: the caller's (`ROLE_USER`) or the agent's. */
export interface Message {
  messageId: string;
  role: "ROLE_USER" | "ROLE_AGENT";
  parts: Part[];
  contextId?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
}

/** A task's current state, with the agent's message about it. */
export interface TaskStatus {
  state: TaskState;
  message?: Message;
  timestamp?: string;
}

/** An output of a task. */
export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: Record<string, unknown>;
}

/** The unit of work A2A tracks: glassloop backs each with one stored run. */
export interface Task {
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: Record<string, unknown>;
}

/** A change of a task's status, streamed. */
export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: Record<string, unknown>;
}

/** An artifact (or a chunk of one), streamed. */
export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
}

/** One event of a stream (`SendStreamingMessage`, `SubscribeToTask`). */
export type StreamResponse =
  | { task: Task }
  | { message: Message }
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent };

/** A security scheme of the agent card, in both spellings (1.0's one-of and v0.3's OpenAPI object). */
export type SecurityScheme = Record<string, unknown>;

/** A skill the agent card advertises. */
export interface AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
}

/** Where and how the agent is reached. */
export interface AgentInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
}

/** The agent card (`/.well-known/agent-card.json`), with the v0.3 fields older clients read. */
export interface AgentCard {
  name: string;
  description: string;
  version: string;
  supportedInterfaces: AgentInterface[];
  capabilities: { streaming?: boolean; pushNotifications?: boolean; extendedAgentCard?: boolean };
  securitySchemes: Record<string, SecurityScheme>;
  securityRequirements: { schemes: Record<string, { list: string[] }> }[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: AgentSkill[];
  provider?: { organization: string; url: string };
  /** v0.3: the JSON-RPC endpoint. */
  url?: string;
  /** v0.3: the protocol version of `url`. */
  protocolVersion?: string;
  /** v0.3: the transport of `url`. */
  preferredTransport?: string;
  /** v0.3: every endpoint with its transport (`JSONRPC`, `HTTP+JSON`). */
  additionalInterfaces?: { url: string; transport: string }[];
  /** v0.3: requirements as OpenAPI lists. */
  security?: Record<string, string[]>[];
  /** v0.3: an extended card is served to authenticated callers. */
  supportsAuthenticatedExtendedCard?: boolean;
}

/** JSON-RPC error codes A2A defines (and JSON-RPC's own). */
export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
  invalidAgentResponse: -32006,
  extendedCardNotConfigured: -32007,
  serverError: -32000,
} as const;
