import { createHash } from "node:crypto";
import { base64Bytes } from "../core/images.js";

const DATA_URL = /^data:(image\/[a-z0-9.+-]+|application\/pdf);base64,/i;
const TYPE_KEYS = ["mediaType", "media_type", "mimeType"] as const;

/** Which kinds of bytes a trace writes as a digest: images, files (PDFs), or both. */
export interface DigestKinds {
  images: boolean;
  files: boolean;
}

const BOTH: DigestKinds = { images: true, files: true };

/** What stands for an image's or a file's bytes in a trace: a short hash and the size, never the bytes. */
function digest(kind: "image" | "file", base64: string): string {
  const hash = createHash("sha256").update(base64).digest("hex").slice(0, 16);
  return `[${kind} sha256:${hash}, ${base64Bytes(base64)} bytes]`;
}

/**
 * `value` with every image's and file's bytes replaced by a digest (`[image sha256:…, N bytes]`,
 * `[file sha256:…, N bytes]`): `data:image/…;base64,` and `data:application/pdf;base64,` URLs
 * (OpenAI's wire forms) and `data` next to such a MIME type (glassloop's transcript, Anthropic's
 * `source`, Gemini's `inlineData`). `kinds` says which to replace (default both). Unchanged parts
 * are shared, not copied; with nothing to replace, `value` itself.
 */
export function withoutImageBytes<T>(value: T, kinds: DigestKinds = BOTH): T {
  if (!kinds.images && !kinds.files) return value;
  return scrub(value, kinds) as T;
}

function kindOf(mediaType: string, kinds: DigestKinds): "image" | "file" | undefined {
  const type = mediaType.toLowerCase();
  if (kinds.images && type.startsWith("image/")) return "image";
  if (kinds.files && type === "application/pdf") return "file";
  return undefined;
}

function scrub(value: unknown, kinds: DigestKinds): unknown {
  if (typeof value === "string") {
    // Only a text that starts with `d` or `D` can be a data URL: every other string of every
    // record (a streamed delta's text, its run id) is passed without running the pattern.
    const first = value.charCodeAt(0);
    if (first !== 100 && first !== 68) return value;
    const match = DATA_URL.exec(value);
    const kind = match ? kindOf(match[1] as string, kinds) : undefined;
    return match && kind ? `data:${match[1]};base64,${digest(kind, value.slice(match[0].length))}` : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = scrub(item, kinds);
      if (next === item) return;
      out ??= value.slice();
      out[i] = next;
    });
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  let kind: "image" | "file" | undefined;
  for (const k of TYPE_KEYS) {
    const type = record[k];
    if (typeof type === "string") kind ??= kindOf(type, kinds);
  }
  let out: Record<string, unknown> | undefined;
  // Object.keys, not Object.entries: the same own enumerable keys in the same order, without a
  // pair per key (this runs for every record a trace writes, every streamed delta included).
  for (const key of Object.keys(record)) {
    const item = record[key];
    const next = kind && key === "data" && typeof item === "string" ? digest(kind, item) : scrub(item, kinds);
    if (next !== item) {
      out ??= { ...record };
      out[key] = next;
    }
  }
  return out ?? value;
}
