import { base64Bytes } from "./images.js";
import type { FilePart } from "./vocabulary/messages.js";

/** The document types every provider reads (Anthropic, OpenAI Chat Completions and Responses, Gemini). */
export const FILE_MEDIA_TYPES: readonly string[] = ["application/pdf"];

/**
 * Largest document glassloop sends, decoded. Base64 makes it a third larger on the wire: 10 MiB
 * becomes 13.3 MiB, under Gemini's 20 MB limit for a request with inline data and Anthropic's
 * 32 MB request limit, with room left for the rest of the conversation.
 */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// A PDF's header may follow up to 1,024 bytes of other data (the PDF spec's allowance that
// readers honour); 1,368 base64 characters decode to 1,026 bytes.
const HEADER_CHARS = 1368;

/** What is wrong with a file, in words for a person or a model, or `undefined` when it is fine. */
export function fileProblem(part: FilePart): string | undefined {
  if (!FILE_MEDIA_TYPES.includes(part.mediaType))
    return `a file of type "${String(part.mediaType).slice(0, 80)}" (allowed: ${FILE_MEDIA_TYPES.join(", ")})`;
  if (part.filename !== undefined && !fitsAsName(part.filename))
    return "a file whose name is empty, longer than 255 characters, or holds control characters";
  if (part.data !== undefined) {
    // The size first, from the length alone: an oversized string is refused without a scan of it.
    const bytes = base64Bytes(part.data);
    if (bytes > MAX_FILE_BYTES) return `a file of ${bytes} bytes (at most ${MAX_FILE_BYTES})`;
    if (part.data.length % 4 !== 0 || !BASE64.test(part.data)) return "a file whose data is not base64";
    if (bytes === 0) return "an empty file";
    const head = Buffer.from(part.data.slice(0, HEADER_CHARS), "base64").toString("latin1");
    if (!head.includes("%PDF-"))
      return "a file labelled application/pdf whose bytes are not a PDF (no %PDF- header)";
    return undefined;
  }
  if (part.url === undefined) return "a file with neither data nor a url";
  if (!URL.canParse(part.url) || !/^https?:$/.test(new URL(part.url).protocol))
    return `a file url that is not http(s) ("${part.url.slice(0, 80)}")`;
  return undefined;
}

// Parts already found fine: a document is checked once, not on every request of the run that
// carries it (decoding the header and scanning megabytes of base64 is ~50 ms for 10 MiB).
const verified = new WeakSet<FilePart>();

/** `fileProblem`, remembered per part object once it is fine (a part changed after that is not re-checked). */
export function checkFile(part: FilePart): string | undefined {
  if (verified.has(part)) return undefined;
  const problem = fileProblem(part);
  if (problem === undefined) verified.add(part);
  return problem;
}

/** Whether a filename is 1-255 characters without control characters (it reaches the model and the terminal). */
export function fitsAsName(name: string): boolean {
  if (name.length === 0 || name.length > 255) return false;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return false;
  }
  return true;
}

/** The file's bytes as a `data:` URL (OpenAI's `file_data`); only for a file with `data`. */
export function fileDataUrl(part: FilePart): string {
  return `data:${part.mediaType};base64,${part.data ?? ""}`;
}

/** The name providers that need one are sent when the file has none (OpenAI requires a name with bytes). */
export function filenameOf(part: FilePart): string {
  return part.filename ?? "document.pdf";
}

/** A short description of a file for text (no bytes). */
export function describeFile(part: FilePart): string {
  const name = part.filename !== undefined ? ` ${JSON.stringify(part.filename)}` : "";
  return part.data !== undefined
    ? `[file ${part.mediaType}${name}, ${base64Bytes(part.data)} bytes]`
    : `[file ${part.mediaType}${name} at ${part.url ?? ""}]`;
}
