/** A unit-length copy of `v`, so cosine similarity becomes a dot product; a zero vector stays zero. */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += (v[i] as number) * (v[i] as number);
  const norm = Math.sqrt(sum);
  const out = new Float32Array(v.length);
  if (norm === 0) return out;
  for (let i = 0; i < v.length; i++) out[i] = (v[i] as number) / norm;
  return out;
}

/** Dot product of two vectors of the same length. */
export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

/** Cosine similarity in [-1, 1]; 0 when either vector is zero. */
export function cosine(a: Float32Array, b: Float32Array): number {
  const na = Math.sqrt(dot(a, a));
  const nb = Math.sqrt(dot(b, b));
  return na === 0 || nb === 0 ? 0 : dot(a, b) / (na * nb);
}

/** A vector as the bytes stored in a BLOB (little-endian float32, the platform's order). */
export function toBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A BLOB read back as a vector (copied, so it is aligned and owns its memory). */
export function fromBlob(blob: Uint8Array): Float32Array {
  const copy = new Uint8Array(blob.byteLength);
  copy.set(blob);
  return new Float32Array(copy.buffer);
}

/**
 * The `k` best of `items` by `score`, best first, keeping only a k-sized list while scanning
 * (n·k instead of sorting all n, which matters at 100,000 notes and small k).
 */
export function topK<T>(
  items: Iterable<T>,
  k: number,
  score: (item: T) => number,
): { item: T; score: number }[] {
  const best: { item: T; score: number }[] = [];
  if (k <= 0) return best;
  for (const item of items) {
    const s = score(item);
    if (best.length === k && s <= (best[k - 1] as { score: number }).score) continue;
    let i = best.length;
    while (i > 0 && (best[i - 1] as { score: number }).score < s) i--;
    best.splice(i, 0, { item, score: s });
    if (best.length > k) best.pop();
  }
  return best;
}
