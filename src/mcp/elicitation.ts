/**
 * The types of MCP elicitation (a server's question for the person) and the process-wide default
 * answerer. No MCP SDK here: the CLI installs its terminal form through this file without loading
 * the SDK for commands that never touch MCP.
 */

/** A server's question for the person (MCP elicitation, form mode). */
export interface McpElicitation {
  /** The server asking (its `name` in the config). */
  server: string;
  message: string;
  /** A flat JSON Schema object of the fields asked for (strings, numbers, booleans, enums). */
  schema: Record<string, unknown>;
  /** Aborted when the server cancels or the connection closes. */
  signal: AbortSignal;
}

/** The person's answer: fields (defaults fill what is left out), no, or not now. */
export type McpElicitationAnswer =
  | { action: "accept"; content: Record<string, string | number | boolean | string[]> }
  | { action: "decline" }
  | { action: "cancel" };

/** Something that answers a server's questions. */
export type McpElicitationHandler = (request: McpElicitation) => Promise<McpElicitationAnswer>;

// On globalThis under a registered symbol: a CLI bundle and the user's copy of glassloop/mcp may be
// two module instances, and both must see the one default.
const KEY = Symbol.for("glassloop.mcp.defaultElicitation");
type Holder = { [KEY]?: McpElicitationHandler };

/**
 * Sets (or with undefined, clears) the answerer used by clients connected afterwards without their
 * own `onElicitation`. `glassloop run` and `glassloop chat` set a terminal form when they have a
 * terminal, so an agent module's MCP servers can ask the person at it.
 */
export function setDefaultElicitation(handler: McpElicitationHandler | undefined): void {
  if (handler) (globalThis as Holder)[KEY] = handler;
  else delete (globalThis as Holder)[KEY];
}

/** The default answerer, if one is set. */
export function defaultElicitation(): McpElicitationHandler | undefined {
  return (globalThis as Holder)[KEY];
}
