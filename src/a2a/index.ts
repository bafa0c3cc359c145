/**
 * `glassloop/a2a`: agents over the Agent2Agent protocol. `createA2AHandler` (or
 * `createHandler({ a2a: true })` from `glassloop/serve`) serves each agent with its card and the
 * JSON-RPC methods of spec 1.0 and v0.3, over stored, resumable runs; `a2aAgent` calls a remote
 * A2A agent as a tool. See docs/a2a.md.
 */
export {
  type A2AAgentOptions,
  type A2AAgentResult,
  type A2AInputAnswer,
  type A2AInputRequest,
  a2aAgent,
} from "./client/a2a-agent.js";
export {
  A2AClient,
  type A2AClientOptions,
  type PeerSend as A2APeerSend,
  type PeerTask as A2APeerTask,
} from "./client/a2a-client.js";
export { type A2AToolSourceOptions, a2aToolSource } from "./client/a2a-tool-source.js";
export { A2APeerError, type A2APeerReason } from "./client/peer-error.js";
export { type A2AHandlerOptions, createA2AHandler } from "./server/handler.js";
export type {
  A2AAuthScheme,
  A2ACardOptions,
  A2AExtendedCard,
  A2APushDelivery,
  A2APushOptions,
  A2AServeOptions,
} from "./server/options.js";
export {
  type A2APushStore,
  MemoryPushStore,
  type PushConfig as A2APushConfig,
  type PushProgress as A2APushProgress,
} from "./server/push-store.js";
export { A2ARequestError } from "./server/rpc.js";
export { SqliteA2AStore } from "./server/sqlite-a2a-store.js";
export { type A2ATaskHistory, MemoryTaskHistory } from "./server/task-history.js";
export type {
  AgentCard as A2AAgentCard,
  AgentSkill as A2AAgentSkill,
  Artifact as A2AArtifact,
  Message as A2AMessage,
  Part as A2APart,
  Task as A2ATask,
  TaskState as A2ATaskState,
  TaskStatus as A2ATaskStatus,
} from "./wire.js";
