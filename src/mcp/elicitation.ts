/**
 * The types of MCP elicitation (a server's question for the person). No MCP SDK here: the CLI's
 * terminal form is typed with them without loading the SDK.
 */
import type { PersonAnswer } from "../core/vocabulary/questions.js";

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
export type McpElicitationAnswer = PersonAnswer;

/** Something that answers a server's questions. */
export type McpElicitationHandler = (request: McpElicitation) => Promise<McpElicitationAnswer>;
