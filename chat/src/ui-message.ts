/**
 * The chat page's model of a message: the shape of the AI SDK's `UIMessage` (v5/v6), so a stored
 * history the server returns and a message assembled from a stream are the same thing, with no
 * conversion. Only what the page reads is typed; unknown fields pass through untouched.
 */

/** A tool part's life: from streamed input to its result, an approval in between when asked. */
export type ToolState =
  | "input-streaming"
  | "input-available"
  | "approval-requested"
  | "approval-responded"
  | "output-available"
  | "output-error"
  | "output-denied";

/** The answer to an approval request, bound to one call by its approval id. */
export interface Approval {
  id: string;
  approved?: boolean;
  reason?: string;
}

/** A tool call: `tool-<name>` for a tool the app declared, `dynamic-tool` for one it did not. */
export interface ToolPart {
  type: `tool-${string}` | "dynamic-tool";
  toolCallId: string;
  /** Only on `dynamic-tool` parts; a static part carries the name in its type. */
  toolName?: string;
  state: ToolState;
  input?: unknown;
  /** The input text as streamed so far (shown while the model is still writing it). */
  rawInput?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: Approval;
}

/** Streamed text, or the model's reasoning. */
export interface TextPart {
  type: "text" | "reasoning";
  /** The stream's part id (kept on reasoning parts, as the AI SDK does). */
  id?: string;
  text: string;
  state?: "streaming" | "done";
}

/** An app-defined data part (`data-<name>`), e.g. glassloop's run and request ids. */
export interface DataPart {
  type: `data-${string}`;
  id?: string;
  data: unknown;
}

/** The boundary between two model calls (steps) of one assistant turn. */
export interface StepStartPart {
  type: "step-start";
}

/** A source or file the model cited: shown as text, never fetched or linked. */
export interface SourcePart {
  type: "source-url" | "source-document" | "file";
  url?: string;
  title?: string;
  mediaType?: string;
  filename?: string;
}

/** Every part the page renders. */
export type MessagePart = TextPart | ToolPart | DataPart | StepStartPart | SourcePart;

/** One message of the chat. */
export interface ChatMessage {
  id: string;
  role: "user" | "assistant" | "system";
  parts: MessagePart[];
  metadata?: Record<string, unknown>;
}

/** Whether a part is a tool call (static or dynamic). */
export function isToolPart(part: MessagePart): part is ToolPart {
  return part.type === "dynamic-tool" || part.type.startsWith("tool-");
}

/** Whether a part is an app-defined data part. */
export function isDataPart(part: MessagePart): part is DataPart {
  return part.type.startsWith("data-");
}

/** The tool's name, from either kind of tool part. */
export function toolNameOf(part: ToolPart): string {
  return part.type === "dynamic-tool" ? (part.toolName ?? "") : part.type.slice("tool-".length);
}
