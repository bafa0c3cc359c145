import type { Scrubber } from "../core/sink.js";
import type { EndedRun, NewNote, NewRun, Note, RunCheckpoint, Store, StoredRunEnd } from "./store.js";

/** What scrubs values before they are stored: the sinks' `Scrubber` (the library's `Redactor` is one). */
export type StoreScrubber = Scrubber;

type Writes = Pick<Store, "createRun" | "checkpoint" | "finishRun" | "recordEndedRun" | "addNote">;

/**
 * `store` with every secret scrubbed before it is written: the task, the transcript, the pending
 * calls, the output, the error and notes (and a run recorded once it ended, where the store
 * can: `recordEndedRun`). A key a server echoed into an answer, or one inside a
 * base URL an error quoted, never reaches the database file or its WAL. Reads and every other
 * method pass through unchanged, so a resumed run sees what was stored, redactions included.
 */
export function redactingStore<S extends Store>(store: S, scrubber: StoreScrubber): S {
  const recordEnded = store.recordEndedRun?.bind(store);
  const writes: Writes = {
    createRun: (run: NewRun) =>
      store.createRun({
        ...run,
        input: scrubber.text(run.input),
        messages: scrubber.value(run.messages),
        progress: scrubber.value(run.progress),
      }),
    checkpoint: (runId: string, checkpoint: RunCheckpoint) =>
      store.checkpoint(runId, {
        ...checkpoint,
        messages: scrubTail(checkpoint.messages, checkpoint.persisted, scrubber),
        progress: scrubber.value(checkpoint.progress),
      }),
    // A session saves messages from before `persisted` too, so the end scrubs the whole transcript.
    finishRun: (runId: string, end: StoredRunEnd) =>
      store.finishRun(runId, {
        ...end,
        messages: scrubber.value(end.messages),
        ...(end.output !== undefined && { output: scrubber.value(end.output) }),
        ...(end.error !== undefined && { error: scrubber.value(end.error) }),
      }),
    // Only where the store has it: a store without it keeps answering undefined for it.
    ...(recordEnded && {
      recordEndedRun: (run: EndedRun) =>
        recordEnded({
          ...run,
          input: scrubber.text(run.input),
          messages: scrubber.value(run.messages),
          ...(run.output !== undefined && { output: scrubber.value(run.output) }),
          ...(run.error !== undefined && { error: scrubber.value(run.error) }),
        }),
    }),
    addNote: (note: NewNote): Promise<Note> =>
      store.addNote({
        ...note,
        text: scrubber.text(note.text),
        ...(note.metadata !== undefined && { metadata: scrubber.value(note.metadata) }),
      }),
  };
  return new Proxy(store, {
    get(target, property) {
      if (Object.hasOwn(writes, property)) return writes[property as keyof Writes];
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
