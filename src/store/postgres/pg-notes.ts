import { ConfigError } from "../../core/errors.js";
import { searchTerms } from "../search-terms.js";
import type { NewNote, Note, ScoredNote } from "../store.js";
import { normalize } from "../vector.js";
import type { PgClient } from "./pg-driver.js";

interface NoteRow {
  id: number;
  scope: string;
  text: string;
  metadata: Record<string, unknown>;
  created_at: number;
  score: number;
}

const COLUMNS = "id, scope, text, metadata, created_at";

/**
 * The notes table on Postgres: full-text search on a generated `tsvector` (English stemming,
 * ranked by ts_rank) and cosine similarity computed in SQL over unit-length `real[]` vectors
 * (no pgvector: a scan of the scope's vectors, fine for thousands of notes, not millions).
 */
export class PgNotes {
  async add(c: PgClient, note: NewNote): Promise<Note> {
    if (typeof note.scope !== "string" || note.scope === "")
      throw new ConfigError("A note needs a non-empty scope (e.g. user:alice)");
    if (typeof note.text !== "string" || note.text.trim() === "")
      throw new ConfigError("A note needs non-empty text");
    const metadata = note.metadata ?? {};
    const unit = note.embedding ? Array.from(normalize(note.embedding)) : null;
    const now = Date.now();
    const found = await c.query<{ id: number }>(
      `INSERT INTO notes (scope, text, metadata, embedding, embedding_model, created_at)
       VALUES ($1, $2, $3, $4::real[], $5, $6) RETURNING id`,
      [note.scope, note.text, JSON.stringify(metadata), unit, note.embeddingModel ?? null, now],
    );
    const id = found.rows[0]?.id as number;
    return { id, scope: note.scope, text: note.text, metadata, createdAt: now };
  }

  /**
   * Any of the words of `query` may match (so a question finds its note), function words left out
   * unless there is nothing else; words the English dictionary drops are searched unstemmed.
   */
  async search(c: PgClient, scope: string, query: string, k: number): Promise<ScoredNote[]> {
    const terms = searchTerms(query);
    if (terms.length === 0 || k <= 0) return [];
    // Words are letters, digits and underscores only, so quoting each one is a valid tsquery.
    const tsquery = terms.map((t) => `'${t}'`).join(" | ");
    const rows = await c.query<NoteRow>(
      `WITH q AS (SELECT to_tsquery('english', $2) AS english, to_tsquery('simple', $2) AS plain)
       SELECT ${COLUMNS}, CASE WHEN numnode(q.english) > 0 THEN ts_rank(tsv, q.english)
                              ELSE ts_rank(to_tsvector('simple', text), q.plain) END AS score
       FROM notes, q
       WHERE scope = $1 AND CASE WHEN numnode(q.english) > 0 THEN tsv @@ q.english
                                 ELSE to_tsvector('simple', text) @@ q.plain END
       ORDER BY score DESC, id LIMIT $3`,
      [scope, tsquery, k],
    );
    return rows.rows.map(toScored);
  }

  async nearest(
    c: PgClient,
    scope: string,
    vector: Float32Array,
    k: number,
    model: string,
  ): Promise<ScoredNote[]> {
    if (k <= 0 || vector.length === 0) return [];
    // A vector of another length (a model renamed in place) cannot be compared; it is left out.
    const rows = await c.query<NoteRow>(
      `SELECT ${COLUMNS},
         (SELECT sum(a::float8 * b) FROM unnest(embedding, $3::float8[]) AS t(a, b)) AS score
       FROM notes
       WHERE scope = $1 AND embedding_model = $2 AND cardinality(embedding) = $4
       ORDER BY score DESC, id LIMIT $5`,
      [scope, model, Array.from(normalize(vector)), vector.length, k],
    );
    return rows.rows.map(toScored);
  }

  async delete(c: PgClient, scope: string, id: number): Promise<void> {
    await c.query("DELETE FROM notes WHERE id = $1 AND scope = $2", [id, scope]);
  }
}

function toScored(row: NoteRow): ScoredNote {
  return {
    id: row.id,
    scope: row.scope,
    text: row.text,
    metadata: row.metadata,
    createdAt: row.created_at,
    score: Number(row.score),
  };
}
