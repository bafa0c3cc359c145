import { type OversizedPart, ResponseTooLargeError } from "../errors.js";
import type { WireReply } from "./reply.js";

/**
 * The body of `reply` as text, read chunk by chunk and given up on at `limitBytes`: a hostile
 * or broken server cannot make glassloop hold more than the cap in memory (a `Content-Length`
 * over it is refused before a byte is read). Over the cap is a `ResponseTooLargeError`.
 */
export async function readCapped(
  reply: WireReply,
  limitBytes: number,
  part: OversizedPart,
  provider: string,
): Promise<string> {
  const tooLarge = () => new ResponseTooLargeError(part, limitBytes, { provider, status: reply.status });
  const declared = Number(reply.header("content-length") ?? Number.NaN);
  if (declared > limitBytes) {
    reply.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  // The rest of an oversized body is never read: the throw drops the connection.
  await reply.read((chunk) => {
    total += chunk.byteLength;
    if (total > limitBytes) throw tooLarge();
    chunks.push(chunk);
    return undefined;
  });
  const only = chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks, total);
  // A view, not a copy: node's chunks are Buffers already, fetch's are Uint8Arrays.
  return Buffer.from(only.buffer, only.byteOffset, only.byteLength).toString("utf8");
}
