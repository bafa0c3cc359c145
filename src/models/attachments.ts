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

/**
 * The parts of the user message that follows a turn's tool results, for a provider whose tool
 * results hold only text: each attaching tool's caption, images and files as `partsOf` renders
 * them, in order, or undefined when none attached any (so the model reads them right after the
 * results, before the next turn). `last` is the index of the turn's last tool message; its tool
 * messages are read back from there, never before `start`.
 */
export function turnAttachments<P>(
  messages: readonly Message[],
  last: number,
  partsOf: (message: ToolMessage) => P[],
  start = 0,
): P[] | undefined {
  let first = last;
  while (first > start && messages[first - 1]?.role === "tool") first--;
  let parts: P[] | undefined;
  for (let i = first; i <= last; i++) {
    const m = messages[i] as ToolMessage;
    if ((m.images?.length ?? 0) === 0 && (m.files?.length ?? 0) === 0) continue;
    parts ??= [];
    parts.push(...partsOf(m));
  }
  return parts;
}
