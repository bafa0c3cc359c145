import { type OversizedPart, ResponseTooLargeError } from "../errors.js";

/**
 * The body of `response` as text, read chunk by chunk and given up on at `limitBytes`: a hostile
 * or broken server cannot make glassloop hold more than the cap in memory (a `Content-Length`
 * over it is refused before a byte is read). Over the cap is a `ResponseTooLargeError`.
 */
export async function readCapped(
  response: Response,
  limitBytes: number,
  part: OversizedPart,
  provider: string,
): Promise<string> {
  const tooLarge = () => new ResponseTooLargeError(part, limitBytes, { provider, status: response.status });
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > limitBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limitBytes) throw tooLarge();
      chunks.push(value);
    }
  } finally {
    // The rest of an oversized body is never read: the connection is dropped instead.
    reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks, total).toString("utf8");
}
