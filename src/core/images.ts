import type { ImagePart } from "./vocabulary/messages.js";

/** The image types every provider accepts. */
export const IMAGE_MEDIA_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** Largest image glassloop sends, decoded (Anthropic's per-image limit; OpenAI's and Gemini's are larger). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Decoded size of base64 text. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}

/** What is wrong with an image, in words for a person or a model, or `undefined` when it is fine. */
export function imageProblem(part: ImagePart): string | undefined {
  if (!IMAGE_MEDIA_TYPES.includes(part.mediaType))
    return `an image of type "${part.mediaType}" (allowed: ${IMAGE_MEDIA_TYPES.join(", ")})`;
  if (part.data !== undefined) {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(part.data)) return "an image whose data is not base64";
    const bytes = base64Bytes(part.data);
    if (bytes === 0) return "an empty image";
    if (bytes > MAX_IMAGE_BYTES) return `an image of ${bytes} bytes (at most ${MAX_IMAGE_BYTES})`;
    return undefined;
  }
  if (part.url === undefined) return "an image with neither data nor a url";
  if (!URL.canParse(part.url) || !/^https?:$/.test(new URL(part.url).protocol))
    return `an image url that is not http(s) ("${part.url.slice(0, 80)}")`;
  return undefined;
}

/** The image as a `data:` URL, or its url. */
export function imageUrl(part: ImagePart): string {
  return part.data !== undefined ? `data:${part.mediaType};base64,${part.data}` : (part.url ?? "");
}

/** A short description of an image for text (no bytes). */
export function describeImage(part: ImagePart): string {
  return part.data !== undefined
    ? `[image ${part.mediaType}, ${base64Bytes(part.data)} bytes]`
    : `[image ${part.mediaType} at ${part.url ?? ""}]`;
}
