/**
 * File parts of a `useChat` message → the run's images and documents. Inline files (`data:` URLs)
 * pass the same checks as any run's input (type, size, the bytes' header). A file by URL is
 * fetched by the model's provider, so it is accepted only where the server's `attachments.allowUrls`
 * allows it, by the URL allow-list guardrail's own rule: the client never widens what the
 * server's owner allowed.
 */
import { fileProblem } from "../core/files.js";
import { IMAGE_MEDIA_TYPES, imageProblem } from "../core/images.js";
import type { FilePart, ImagePart } from "../core/vocabulary/messages.js";
import { urlAllowedBy } from "../features/guardrails/guards/url-allow-list.js";
import { refuse } from "./errors.js";

/** What the server accepts as files in a user message. */
export interface ServeAttachments {
  /**
   * URLs a file part may point to (prefixes, as `urlAllowList` reads them: `https://files.example.com`).
   * Default none: only inline (`data:`) files.
   */
  allowUrls?: readonly string[];
  /** Most files in one message (default 8). */
  maxFiles?: number;
}

/** The run's attachments from one message. */
export interface Attached {
  images: ImagePart[];
  files: FilePart[];
}

/** What the serve log keeps of an attachment, to show it again (never the bytes). */
export interface AttachmentNote {
  mediaType: string;
  filename?: string;
  url?: string;
}

const DATA_URL = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)(?:;[a-z0-9-]+=[^;,]*)*;base64,/i;

/** Checks file parts as `useChat` sends them (`{ type: "file", mediaType, url, filename? }`). */
export class AttachmentRules {
  readonly #allowed: ((url: string) => boolean) | undefined;
  readonly #maxFiles: number;

  constructor(options: ServeAttachments = {}) {
    this.#allowed = options.allowUrls?.length ? urlAllowedBy(options.allowUrls) : undefined;
    this.#maxFiles = options.maxFiles ?? 8;
  }

  /** The images and documents of `parts`, each checked; 422 naming the first that is refused. */
  take(parts: readonly Record<string, unknown>[]): Attached {
    if (parts.length > this.#maxFiles)
      throw refuse.invalid(`a message may carry at most ${this.#maxFiles} files`);
    const out: Attached = { images: [], files: [] };
    for (const part of parts) {
      const { mediaType, url, filename } = part;
      if (typeof mediaType !== "string" || typeof url !== "string")
        throw refuse.invalid("a file part needs a mediaType and a url");
      if (filename !== undefined && typeof filename !== "string")
        throw refuse.invalid("a file's filename must be text");
      const inline = DATA_URL.exec(url);
      const data = inline ? url.slice(inline[0].length) : undefined;
      if (inline && (inline[1] as string).toLowerCase() !== mediaType.toLowerCase())
        throw refuse.invalid("a file part's mediaType differs from its data URL's");
      if (!inline && url.startsWith("data:"))
        throw refuse.invalid("an inline file must be a base64 data URL");
      const source = data !== undefined ? { data } : { url };
      if (IMAGE_MEDIA_TYPES.includes(mediaType)) {
        const image: ImagePart = { type: "image", mediaType, ...source };
        const problem = imageProblem(image);
        if (problem) throw refuse.invalid(`the message has ${problem}`);
        out.images.push(image);
      } else {
        const file: FilePart = {
          type: "file",
          mediaType,
          ...source,
          ...(filename !== undefined && { filename }),
        };
        const problem = fileProblem(file);
        if (problem) throw refuse.invalid(`the message has ${problem}`);
        out.files.push(file);
      }
    }
    this.#checkUrls(out);
    return out;
  }

  #checkUrls(attached: Attached): void {
    const urls = [...attached.images, ...attached.files].flatMap((p) => (p.url === undefined ? [] : [p.url]));
    if (urls.length === 0) return;
    if (!this.#allowed)
      throw refuse.invalid(
        "files by URL are not accepted here (the server allows none); send the file inline",
      );
    const refused = urls.filter((url) => !this.#allowed?.(url));
    // The host only: a URL's query may carry what it would leak.
    if (refused.length > 0)
      throw refuse.invalid(`a file's URL is not allowed here (${refused.map(hostOf).join(", ")})`);
  }
}

function hostOf(url: string): string {
  return URL.canParse(url) ? new URL(url).host : "not a URL";
}

/** What the log keeps of attachments: type, name and URL (inline bytes stay in the store only). */
export function attachmentNotes(attached: Attached): AttachmentNote[] {
  return [...attached.images, ...attached.files].map((p) => ({
    mediaType: p.mediaType,
    ...(p.type === "file" && p.filename !== undefined && { filename: p.filename }),
    ...(p.url !== undefined && { url: p.url }),
  }));
}
