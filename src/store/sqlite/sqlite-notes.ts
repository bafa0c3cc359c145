import type Database from "better-sqlite3";
import { ConfigError } from "../../core/errors.js";
import { searchTerms } from "../search-terms.js";
import type { NewNote, Note, ScoredNote } from "../store.js";
import { normalize, toBlob } from "../vector.js";
import { parseStored } from "./sqlite-open.js";
import { VectorCache } from "./vector-cache.js";

interface NoteRow {
  id: number;
  scope: string;
  text: string;
  metadata: string;
  created_at: number;
}

/** The notes table: FTS5 full-text search (BM25) and brute-force cosine over float32 blobs. */
export class SqliteNotes {
  readonly #db: Database.Database;
  readonly #file: string;
  readonly #vectors = new VectorCache();

  constructor(db: Database.Database, file: string) {
    this.#db = db;
    this.#file = file;
  }

  add(note: NewNote): Note {
    if (typeof note.scope !== "string" || note.scope === "")
      throw new ConfigError("A note needs a non-empty scope (e.g. user:alice)");
    if (typeof note.text !== "string" || note.text.trim() === "")
      throw new ConfigError("A note needs non-empty text");
    const now = Date.now();
    const metadata = note.metadata ?? {};
    const unit = note.embedding ? normalize(note.embedding) : undefined;
    const embedding = unit ? toBlob(unit) : null;
    const info = this.#db
      .prepare(
        "INSERT INTO notes (scope, text, metadata, embedding, embedding_model, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run(note.scope, note.text, JSON.stringify(metadata), embedding, note.embeddingModel ?? null, now);
    const id = Number(info.lastInsertRowid);
    if (unit && note.embeddingModel !== undefined)
      this.#vectors.added(keyOf(note.scope, note.embeddingModel), this.#version(), id, unit);
    return { id, scope: note.scope, text: note.text, metadata, createdAt: now };
  }

  /** BM25 over the words of `query`, any of which may match (so a question finds its note). */
  search(scope: string, query: string, k: number): ScoredNote[] {
    const terms = searchTerms(query);
    if (terms.length === 0 || k <= 0) return [];
    const match = terms.map((t) => `"${t}"`).join(" OR ");
    const rows = this.#db
      .prepare(
        `SELECT n.id, n.scope, n.text, n.metadata, n.created_at, bm25(notes_fts) AS rank
         FROM notes_fts JOIN notes n ON n.id = notes_fts.rowid
         WHERE notes_fts MATCH ? AND n.scope = ? ORDER BY rank LIMIT ?`,
      )
      .all(match, scope, k) as (NoteRow & { rank: number })[];
    // bm25() is lower-is-better and negative; flip it so every score reads higher-is-better.
    return rows.map((r) => ({ ...this.#toNote(r), score: -r.rank }));
  }

  nearest(scope: string, vector: Float32Array, k: number, model: string): ScoredNote[] {
    if (k <= 0 || vector.length === 0) return [];
    const load = () =>
      this.#db
        .prepare(
          "SELECT id, embedding FROM notes WHERE scope = ? AND embedding_model = ? AND embedding IS NOT NULL",
        )
        .raw()
        .iterate(scope, model) as IterableIterator<[number, Buffer]>;
    const best = this.#vectors.nearest(keyOf(scope, model), this.#version(), normalize(vector), k, load);
    const byId = this.#db.prepare("SELECT id, scope, text, metadata, created_at FROM notes WHERE id = ?");
    return best.map(({ id, score }) => ({ ...this.#toNote(byId.get(id) as NoteRow), score }));
  }

  delete(scope: string, id: number): void {
    this.#db.prepare("DELETE FROM notes WHERE id = ? AND scope = ?").run(id, scope);
    this.#vectors.dropScope(scope);
  }

  /** Changes when another connection commits: the cached vectors may be stale then. */
  #version(): number {
    return this.#db.pragma("data_version", { simple: true }) as number;
  }

  #toNote(row: NoteRow): Note {
    return {
      id: row.id,
      scope: row.scope,
      text: row.text,
      metadata: parseStored(row.metadata, this.#file, `the metadata of note ${row.id}`),
      createdAt: row.created_at,
    };
  }
}

function keyOf(scope: string, model: string): string {
  return `${scope}\u0000${model}`;
}
