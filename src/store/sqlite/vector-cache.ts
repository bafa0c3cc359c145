/** The unit vectors of one scope and embedding model, packed row after row. */
interface Matrix {
  dims: number;
  ids: number[];
  data: Float32Array;
  /** The database's data_version when built: a write by another connection makes it stale. */
  version: number;
}

/**
 * Packed copies of the stored vectors per scope and model, so a nearest-notes query is a scan
 * over one Float32Array instead of reading and copying every BLOB again. This connection's own
 * writes update it in place; another process's writes (seen through `PRAGMA data_version`)
 * make the next query rebuild it.
 */
export class VectorCache {
  readonly #matrices = new Map<string, Matrix>();

  /** The best `k` ids by dot product with the unit vector `query`, building the matrix if needed. */
  nearest(
    key: string,
    version: number,
    query: Float32Array,
    k: number,
    load: () => Iterable<[number, Uint8Array]>,
  ): { id: number; score: number }[] {
    let matrix = this.#matrices.get(key);
    if (!matrix || matrix.version !== version || matrix.dims !== query.length) {
      matrix = build(load(), query.length, version);
      this.#matrices.set(key, matrix);
    }
    const { dims, ids, data } = matrix;
    // A plain loop with a small sorted top list: no per-row closure or allocation, since this runs
    // over every stored vector of the scope.
    const topScores: number[] = [];
    const topRows: number[] = [];
    for (let row = 0, at = 0; row < ids.length; row++, at += dims) {
      let sum = 0;
      for (let d = 0; d < dims; d++) sum += (query[d] as number) * (data[at + d] as number);
      if (topScores.length === k && sum <= (topScores[k - 1] as number)) continue;
      let i = topScores.length;
      while (i > 0 && (topScores[i - 1] as number) < sum) i--;
      topScores.splice(i, 0, sum);
      topRows.splice(i, 0, row);
      if (topScores.length > k) {
        topScores.pop();
        topRows.pop();
      }
    }
    return topRows.map((row, i) => ({ id: ids[row] as number, score: topScores[i] as number }));
  }

  /** A vector this connection just stored. */
  added(key: string, version: number, id: number, unit: Float32Array): void {
    const matrix = this.#matrices.get(key);
    if (!matrix) return;
    if (matrix.version !== version || matrix.dims !== unit.length) {
      this.#matrices.delete(key);
      return;
    }
    const needed = (matrix.ids.length + 1) * matrix.dims;
    if (needed > matrix.data.length) {
      const grown = new Float32Array(Math.max(needed, matrix.data.length * 2));
      grown.set(matrix.data);
      matrix.data = grown;
    }
    matrix.data.set(unit, matrix.ids.length * matrix.dims);
    matrix.ids.push(id);
  }

  /** Forgets every matrix of a scope (a note was deleted). */
  dropScope(scope: string): void {
    for (const key of this.#matrices.keys()) if (key.startsWith(`${scope}\u0000`)) this.#matrices.delete(key);
  }
}

function build(rows: Iterable<[number, Uint8Array]>, dims: number, version: number): Matrix {
  const ids: number[] = [];
  let data = new Float32Array(dims * 1024);
  const bytes = dims * 4;
  for (const [id, blob] of rows) {
    // A vector of another length (a model renamed in place) cannot be compared; it is left out.
    if (blob.byteLength !== bytes) continue;
    if ((ids.length + 1) * dims > data.length) {
      const grown = new Float32Array(data.length * 2);
      grown.set(data);
      data = grown;
    }
    new Uint8Array(data.buffer, ids.length * bytes, bytes).set(blob);
    ids.push(id);
  }
  return { dims, ids, data, version };
}
