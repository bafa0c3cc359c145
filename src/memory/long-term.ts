import { ConfigError } from "../core/errors.js";
import type { Note, ScoredNote, Store } from "../store/store.js";
import type { Embedder } from "./embeddings.js";

/** Who a memory belongs to: a scope string such as `user:alice`, or a user or resource id. */
export type MemoryScope = string | { user: string } | { resource: string };

/** How `search` ranks: BM25 full text, cosine over embeddings, or both fused by rank. */
export type RecallMode = "text" | "vector" | "hybrid";

/** Options of {@link LongTermMemory}. */
export interface LongTermMemoryOptions {
  store: Store;
  scope: MemoryScope;
  /** Enables vector search; notes are embedded when remembered. */
  embeddings?: Embedder;
  /** Default: `hybrid` with embeddings, `text` without. */
  mode?: RecallMode;
}

// Reciprocal rank fusion constant; 60 is the value from the original paper and what most engines use.
const RRF_K = 60;

/**
 * Long-term recall for one user or resource: `remember` notes, `search` them later, across runs
 * and sessions. Full-text search works offline with no model; an embedder adds vector search.
 */
export class LongTermMemory {
  readonly scope: string;
  readonly mode: RecallMode;
  readonly #store: Store;
  readonly #embeddings: Embedder | undefined;

  constructor(options: LongTermMemoryOptions) {
    this.#store = options.store;
    this.#embeddings = options.embeddings;
    this.scope = scopeKey(options.scope);
    this.mode = options.mode ?? (options.embeddings ? "hybrid" : "text");
    if (this.mode !== "text" && !options.embeddings)
      throw new ConfigError(`LongTermMemory: mode "${this.mode}" needs an embeddings option`);
  }

  /** The same memory for another user or resource. */
  forScope(scope: MemoryScope): LongTermMemory {
    return new LongTermMemory({
      store: this.#store,
      scope,
      mode: this.mode,
      ...(this.#embeddings && { embeddings: this.#embeddings }),
    });
  }

  /** Stores a note (embedding it first when an embedder is configured). */
  async remember(text: string, metadata: Record<string, unknown> = {}, signal?: AbortSignal): Promise<Note> {
    const embedding = this.#embeddings ? (await this.#embeddings.embed([text], signal))[0] : undefined;
    return this.#store.addNote({
      scope: this.scope,
      text,
      metadata,
      ...(embedding && this.#embeddings && { embedding, embeddingModel: this.#embeddings.id }),
    });
  }

  /** The `k` notes that best match `query`, best first. */
  async search(query: string, k = 5, signal?: AbortSignal): Promise<ScoredNote[]> {
    if (!Number.isInteger(k) || k < 1)
      throw new ConfigError(`LongTermMemory.search: k must be a positive whole number`);
    if (this.mode === "text") return this.#store.searchNotes(this.scope, query, k);
    const embedder = this.#embeddings as Embedder;
    const [vector] = await embedder.embed([query], signal);
    if (!vector) return [];
    if (this.mode === "vector") return this.#store.nearestNotes(this.scope, vector, k, embedder.id);
    const depth = Math.max(k * 3, 10);
    const [byText, byVector] = await Promise.all([
      this.#store.searchNotes(this.scope, query, depth),
      this.#store.nearestNotes(this.scope, vector, depth, embedder.id),
    ]);
    return fuse([byText, byVector], k);
  }

  /** Forgets a note of this scope. */
  forget(id: number): Promise<void> {
    return this.#store.deleteNote(this.scope, id);
  }
}

/** Reciprocal rank fusion: each list adds 1/(60 + rank); scores of different scales need no tuning. */
export function fuse(lists: readonly (readonly ScoredNote[])[], k: number): ScoredNote[] {
  const byId = new Map<number, ScoredNote>();
  for (const list of lists) {
    list.forEach((note, rank) => {
      const seen = byId.get(note.id);
      const add = 1 / (RRF_K + rank + 1);
      byId.set(note.id, { ...note, score: (seen?.score ?? 0) + add });
    });
  }
  return [...byId.values()].sort((a, b) => b.score - a.score).slice(0, k);
}

/** The scope string for a scope option. */
export function scopeKey(scope: MemoryScope): string {
  const key =
    typeof scope === "string"
      ? scope
      : "user" in scope
        ? `user:${scope.user}`
        : "resource" in scope
          ? `resource:${scope.resource}`
          : "";
  if (!key || key.endsWith(":"))
    throw new ConfigError(
      `LongTermMemory: invalid scope ${JSON.stringify(scope)}; use "user:alice", { user } or { resource }`,
    );
  return key;
}
