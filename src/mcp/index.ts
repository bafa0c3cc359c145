/**
 * MCP for glassloop (`import … from "glassloop/mcp"`): servers' tools as glassloop tools, and
 * agents as MCP servers. A separate entry so the core never loads the MCP SDK.
 */
export { McpClient, McpConnectError, McpToolListError } from "./client.js";
export type { McpClientFeatures, McpLogEntry } from "./client-features.js";
export type {
  McpElicitation,
  McpElicitationAnswer,
  McpElicitationHandler,
} from "./elicitation.js";
export { BoundedEventStore } from "./event-store.js";
export { createMcpHttpHandler, type McpHttpHandler, type McpHttpOptions } from "./http-handler.js";
export {
  type AgentMcpHttpOptions,
  createAgentMcpHandler,
  type RunningMcpServer,
  type ServeOverHttpOptions,
  serveAgentOverHttp,
} from "./http-server.js";
export { type JsonSchemaToolDefinition, jsonSchemaTool } from "./json-schema-tool.js";
export {
  McpAuthError,
  type McpCredentialStore,
  type McpCredentials,
  type McpOAuthOptions,
} from "./oauth.js";
export {
  type PostgresMcpCredentialOptions,
  PostgresMcpCredentialStore,
} from "./postgres-credentials.js";
export {
  type McpPrompt,
  type McpPromptMessage,
  McpPrompts,
  type McpResource,
  McpResources,
} from "./resources-prompts.js";
export type { McpSamplingOptions, McpSamplingRequest } from "./sampling.js";
export type {
  McpContentBlock,
  McpServedPrompt,
  McpServedPromptArgument,
  McpServedResource,
  McpServedResourceTemplate,
  McpServedTool,
  McpServerContent,
  McpToolAnswer,
  McpToolCall,
} from "./served-types.js";
export {
  type AgentServerOptions,
  createAgentServer,
  createMcpServer,
  type McpServerOptions,
  type ServableAgent,
  serveAgentOverStdio,
} from "./server.js";
export type { McpServerConfig } from "./server-config.js";
export { SqliteMcpCredentialStore } from "./sqlite-credentials.js";
