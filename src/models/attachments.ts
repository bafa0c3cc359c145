import { ConfigError } from "../core/errors.js";
import { checkFile } from "../core/files.js";
import type { FilePart, Message, ToolMessage } from "../core/vocabulary/messages.js";

/**
 * A message part the provider's wire format has no place for (a file by URL on Chat Completions):
 * refused before anything is sent, rather than silently dropped or described in words.
 */
export class UnsupportedContentError extends ConfigError {
  /** The provider that cannot carry it. */
  readonly provider: string;
  constructor(provider: string, message: string) {
    super(message);
    this.name = "UnsupportedContentError";
    this.provider = provider;
  }
}

/**
 * `files` of a user message, each checked (type, size, base64, url); a bad one is a ConfigError
 * before sending. Each part is checked once (the run's input check counts), not on every request.
 */
export function checkedFiles(files: readonly FilePart[]): readonly FilePart[] {
  for (const file of files) {
    const problem = checkFile(file);
    if (problem) throw new ConfigError(`A user message has ${problem}`);
  }
  return files;
}

/**
 * The words before a tool's images and files where a provider's tool results cannot hold them and
 * they go in the user message after the results (OpenAI Chat Completions and Responses, Gemini).
 */
export function toolAttachmentsCaption(message: ToolMessage): string {
  const images = (message.images?.length ?? 0) > 0;
  const files = (message.files?.length ?? 0) > 0;
  const what = images && files ? "Images and files" : files ? "Files" : "Images";
  return `${what} returned by tool ${message.toolName} (call ${message.toolCallId}):`;
}

/** Whether a tool message carries images or files the provider must attach. */
export function hasAttachments(message: ToolMessage): boolean {
  return (message.images?.length ?? 0) > 0 || (message.files?.length ?? 0) > 0;
}

/**
 * Walks `messages[start..]` for a provider whose tool results hold only text: `emit` gets each
 * message, and after each turn's tool messages `flush` gets one user message's parts, each
 * attaching tool's caption, images and files as `partsOf` renders them (so the model reads them
 * right after the results, before the next turn).
 */
export function withToolAttachments<P>(
  messages: readonly Message[],
  start: number,
  emit: (message: Message) => void,
  partsOf: (message: ToolMessage) => P[],
  flush: (parts: P[]) => void,
): void {
  let attached: P[] | undefined;
  for (let i = start; i < messages.length; i++) {
    const m = messages[i] as Message;
    if (attached && m.role !== "tool") {
      flush(attached);
      attached = undefined;
    }
    emit(m);
    if (m.role === "tool" && hasAttachments(m)) {
      attached ??= [];
      attached.push(...partsOf(m));
    }
  }
  if (attached) flush(attached);
}
