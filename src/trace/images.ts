import { createHash } from "node:crypto";
import { base64Bytes } from "../memory/images.js";

const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,/i;
const TYPE_KEYS = ["mediaType", "media_type", "mimeType"] as const;

/** What stands for an image's bytes in a trace: a short hash and the size, never the bytes. */
export function imageDigest(base64: string): string {
  const hash = createHash("sha256").update(base64).digest("hex").slice(0, 16);
  return `[image sha256:${hash}, ${base64Bytes(base64)} bytes]`;
}

/**
 * `value` with every image's bytes replaced by `imageDigest`: `data:image/…;base64,` URLs (OpenAI's
 * wire form) and `data` next to an image MIME type (glassloop's transcript, Anthropic's `source`,
 * Gemini's `inlineData`). Unchanged parts are shared, not copied; with no image, `value` itself.
 */
export function withoutImageBytes<T>(value: T): T {
  return scrub(value) as T;
}

function scrub(value: unknown): unknown {
  if (typeof value === "string") {
    const match = DATA_URL.exec(value);
    return match ? `data:${match[1]};base64,${imageDigest(value.slice(match[0].length))}` : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = scrub(item);
      if (next === item) return;
      out ??= value.slice();
      out[i] = next;
    });
    return out ?? value;
  }
  const record = value as Record<string, unknown>;
  const isImage = TYPE_KEYS.some(
    (k) => typeof record[k] === "string" && (record[k] as string).startsWith("image/"),
  );
  let out: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(record)) {
    const next = isImage && key === "data" && typeof item === "string" ? imageDigest(item) : scrub(item);
    if (next !== item) {
      out ??= { ...record };
      out[key] = next;
    }
  }
  return out ?? value;
}
