import type { Scrubber } from "../core/sink.js";
import type { Store } from "./store.js";

/** What scrubs values before they are stored: the sinks' `Scrubber` (the library's `Redactor` is one). */
export type StoreScrubber = Scrubber;

/** The names of `Store`'s methods, optional ones included (`location` is data, not a method). */
export type StoreMethod = {
  [K in keyof Store]-?: NonNullable<Store[K]> extends (...args: never[]) => unknown ? K : never;
}[keyof Store];

/**
 * How `redactingStore` treats one method of the store. A `write` stores text a run, a model or a
 * person produced, so the wrapper scrubs its arguments (`wrap` builds the scrubbing version from
 * the store's own method). `read`: it only reads. `bookkeeping`: it writes only what the caller's
 * process chose itself (ids, owners, leases, states, deletions), never produced text.
 */
export type StoreMethodRule =
  | { kind: "write"; wrap: (method: never, scrubber: StoreScrubber) => unknown }
  | { kind: "read" }
  | { kind: "bookkeeping" };

/** A write rule, typed by the method it scrubs. */
function write<M extends StoreMethod>(
  _method: M,
  wrap: (method: NonNullable<Store[M]>, scrubber: StoreScrubber) => NonNullable<Store[M]>,
): StoreMethodRule {
  return { kind: "write", wrap };
}

const READ: StoreMethodRule = { kind: "read" };
const BOOKKEEPING: StoreMethodRule = { kind: "bookkeeping" };

/**
 * Every method of `Store`, classified: the compiler refuses a `Store` method missing here (and a
 * name that is not one), and a test walks the real stores' prototypes and refuses any method this
 * table does not name, so a new write cannot reach a database unscrubbed by being forgotten.
 */
export const STORE_METHOD_RULES = {
  createRun: write(
    "createRun",
    (createRun, scrubber) => (run) =>
      createRun({
        ...run,
        input: scrubber.text(run.input),
        messages: scrubber.value(run.messages),
        progress: scrubber.value(run.progress),
      }),
  ),
  checkpoint: write(
    "checkpoint",
    (checkpoint, scrubber) => (runId, point) =>
      checkpoint(runId, {
        ...point,
        messages: scrubTail(point.messages, point.persisted, scrubber),
        progress: scrubber.value(point.progress),
      }),
  ),
  // A session saves messages from before `persisted` too, so the end scrubs the whole transcript.
  finishRun: write(
    "finishRun",
    (finishRun, scrubber) => (runId, end) =>
      finishRun(runId, {
        ...end,
        messages: scrubber.value(end.messages),
        ...(end.output !== undefined && { output: scrubber.value(end.output) }),
        ...(end.error !== undefined && { error: scrubber.value(end.error) }),
      }),
  ),
  recordEndedRun: write(
    "recordEndedRun",
    (recordEndedRun, scrubber) => (run) =>
      recordEndedRun({
        ...run,
        input: scrubber.text(run.input),
        messages: scrubber.value(run.messages),
        ...(run.output !== undefined && { output: scrubber.value(run.output) }),
        ...(run.error !== undefined && { error: scrubber.value(run.error) }),
      }),
  ),
  addNote: write(
    "addNote",
    (addNote, scrubber) => (note) =>
      addNote({
        ...note,
        text: scrubber.text(note.text),
        ...(note.metadata !== undefined && { metadata: scrubber.value(note.metadata) }),
      }),
  ),
  loadRun: READ,
  listRuns: READ,
  listSessions: READ,
  readSession: READ,
  searchNotes: READ,
  nearestNotes: READ,
  // A claim stores the owner (pid, host, lease) and moves the status; a lock stores ids.
  claimRun: BOOKKEEPING,
  discardRun: BOOKKEEPING,
  renewLeases: BOOKKEEPING,
  releaseRun: BOOKKEEPING,
  lockSession: BOOKKEEPING,
  unlockSession: BOOKKEEPING,
  // A fork copies messages already stored (so already scrubbed), under an id the caller chose.
  forkSession: BOOKKEEPING,
  deleteSession: BOOKKEEPING,
  deleteNote: BOOKKEEPING,
  close: BOOKKEEPING,
} as const satisfies Record<StoreMethod, StoreMethodRule>;

/**
 * `store` with every secret scrubbed before it is written: the task, the transcript, the pending
 * calls, the output, the error and notes (and a run recorded once it ended, where the store
 * can: `recordEndedRun`); see `STORE_METHOD_RULES`. A key a server echoed into an answer, or one
 * inside a base URL an error quoted, never reaches the database file or its WAL. Reads and every
 * other method pass through unchanged, so a resumed run sees what was stored, redactions included.
 */
export function redactingStore<S extends Store>(store: S, scrubber: StoreScrubber): S {
  const writes = new Map<PropertyKey, unknown>();
  for (const [name, rule] of Object.entries(STORE_METHOD_RULES) as [StoreMethod, StoreMethodRule][]) {
    const method: unknown = store[name];
    // Only where the store has it: a store without an optional write keeps answering undefined.
    if (rule.kind === "write" && typeof method === "function")
      writes.set(name, rule.wrap(method.bind(store) as never, scrubber));
  }
  return new Proxy(store, {
    get(target, property) {
      if (writes.has(property)) return writes.get(property);
      const value: unknown = Reflect.get(target, property, target);
      // Methods of a class with private fields must run on the store itself, not on the proxy.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * The transcript of a checkpoint with only the messages the store appends (`persisted` on)
 * scrubbed: the earlier ones were scrubbed by earlier checkpoints and are not written again.
 */
function scrubTail<T>(messages: readonly T[], persisted: number, scrubber: StoreScrubber): T[] {
  const out = messages.slice();
  for (let i = persisted; i < out.length; i++) out[i] = scrubber.value(out[i] as T);
  return out;
}
