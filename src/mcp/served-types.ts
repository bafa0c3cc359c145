import type {
  CallToolResult,
  CreateMessageRequestParamsBase,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitResult,
  LoggingLevel,
  PromptMessage,
} from "@modelcontextprotocol/sdk/types.js";
import type { JsonSchema } from "../models/model.js";

/** One block of a tool's answer: text, image, audio, a resource link or an embedded resource. */
export type McpContentBlock = CallToolResult["content"][number];

/** What a served tool returns: text, or blocks (with structured content, or flagged as an error). */
export type McpToolAnswer =
  | string
  | { content: McpContentBlock[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/** What a served tool can do while it runs, besides returning its answer. */
export interface McpToolCall {
  /** Aborted when the client cancels the call or the session ends. */
  readonly signal: AbortSignal;
  /** The session the call came in on (undefined over stdio). */
  readonly sessionId: string | undefined;
  /** Tells the client how far along the call is; a no-op when the client sent no progress token. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
  /** A log message on this call's stream, dropped below the level the client set. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Asks the person at the client a question (elicitation, form mode). Fails with "The client did
   * not offer elicitation" when it did not.
   */
  elicit(message: string, schema: ElicitRequestFormParams["requestedSchema"]): Promise<ElicitResult>;
  /**
   * Asks the client's model (sampling). Fails with "The client did not offer sampling" when it did
   * not, or with the client's refusal (a budget, a person who said no).
   */
  sample(request: CreateMessageRequestParamsBase): Promise<CreateMessageResult>;
  /**
   * Closes this call's SSE stream now (streamable HTTP only): the client reconnects with
   * `Last-Event-ID` and gets what follows from the replay store. For long calls behind proxies that
   * cut idle connections.
   */
  closeStream(): void;
}

/** A tool offered to MCP clients. Its JSON Schema is sent as written and checked before `run`. */
export interface McpServedTool {
  /** `^[a-zA-Z0-9_.-]{1,128}$`, the MCP rule. */
  name: string;
  title?: string;
  description: string;
  /** The arguments' JSON Schema (default: an object with no declared properties). */
  inputSchema?: JsonSchema;
  /** An object schema for `structuredContent`, declared to clients. */
  outputSchema?: JsonSchema;
  /** The answer; a thrown error becomes an `isError` answer with its message. */
  run(args: Record<string, unknown>, call: McpToolCall): McpToolAnswer | Promise<McpToolAnswer>;
}

/** A resource offered at a fixed URI. */
export interface McpServedResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** The contents: a string is text, bytes are sent as a base64 blob. */
  read(): string | Uint8Array | Promise<string | Uint8Array>;
  /**
   * Calls `changed` whenever the contents change; returns how to stop. Called when a client
   * subscribes (`resources/subscribe`), stopped when it unsubscribes or the session ends.
   */
  watch?(changed: () => void): () => void;
}

/** Resources named by a URI template (RFC 6570, e.g. `notes://{id}`). */
export interface McpServedResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** The resources that exist now, for `resources/list` (default: none listed). */
  list?():
    | { uri: string; name: string; description?: string; mimeType?: string }[]
    | Promise<{ uri: string; name: string; description?: string; mimeType?: string }[]>;
  /** The contents of one URI, with the template's variables. */
  read(uri: string, variables: Record<string, string>): string | Uint8Array | Promise<string | Uint8Array>;
  /** Completions for a variable's value (`completion/complete`). */
  complete?: Record<string, (value: string) => string[] | Promise<string[]>>;
}

/** An argument of a served prompt. */
export interface McpServedPromptArgument {
  name: string;
  description?: string;
  required?: boolean;
  /** Completions for the argument's value (`completion/complete`). */
  complete?: (value: string, others: Record<string, string>) => string[] | Promise<string[]>;
}

/** A prompt offered to MCP clients (`prompts/list`, `prompts/get`). */
export interface McpServedPrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: McpServedPromptArgument[];
  /** The messages; a string is one user text message. */
  get(args: Record<string, string>): string | PromptMessage[] | Promise<string | PromptMessage[]>;
}

/** What a glassloop MCP server offers beyond (or instead of) an agent. Each list may be empty. */
export interface McpServerContent {
  tools?: readonly McpServedTool[];
  resources?: readonly McpServedResource[];
  resourceTemplates?: readonly McpServedResourceTemplate[];
  prompts?: readonly McpServedPrompt[];
}
