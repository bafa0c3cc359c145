import { ConfigError, RunError, runStatusOf } from "../errors.js";
import type { MemoryStrategy } from "../memory/strategy.js";
import { deferredDefaultStore } from "../store/deferred-default-store.js";
import { RunBusyError } from "../store/errors.js";
import { currentOwner, markActive, reserveClaim } from "../store/owner.js";
import type { RunTools, Store, StoredRun } from "../store/store.js";
import type { Message } from "../vocabulary/messages.js";
import { type ApprovalDecision, ApprovalGate, type ApprovalHandler } from "./approval.js";
import { ContextView, type RecallOptions } from "./context-view.js";
import { DurableRun } from "./durable.js";
import type { LoopOutcome, LoopSettings } from "./loop.js";
import { resumeHook } from "./resume.js";
import type { RunState } from "./run-state.js";

/** The memory-related parts of an agent's configuration. */
export interface PersistenceConfig {
  /** Where sessions, checkpoints and notes live; with a store every run is durable. */
  store?: Store;
  memory?: MemoryStrategy;
  recall?: RecallOptions;
}

/** What one run needs from persistence, attached after its state is built. */
export interface AttachedRun {
  /** Merged into the loop's settings (the resume hook). */
  loop: Pick<LoopSettings, "resume">;
  succeeded(state: RunState<unknown>, outcome: LoopOutcome): Promise<void>;
  failed(state: RunState<unknown>, error: unknown): Promise<void>;
  /** Frees the session for the next run of this process; always called, success or not. */
  release(): void;
}

// Runs on one session in this process wait for each other instead of failing.
const sessionQueues = new Map<string, Promise<void>>();

/** Wires a run to its store (checkpoints, sessions, resume) and its context view. */
export class Persistence {
  readonly #config: PersistenceConfig;
  readonly #agent: string;

  constructor(config: PersistenceConfig, agent: string) {
    this.#config = config;
    this.#agent = agent;
  }

  /** The configured store, or the default SQLite file, loaded and opened on its first call. */
  get store(): Store {
    return this.#config.store ?? deferredDefaultStore();
  }

  /**
   * Takes over a stored run so this process can resume it; `release` must be called once the run
   * is over (or failed to start), and a second resume of the same run meanwhile is refused.
   * `check` sees the run as read before the claim and may refuse it (bad decisions, new tools):
   * a refused resume claims nothing, so the run stays as it was. The claim itself is one
   * compare-and-set against what was read: if another process got there first, RunBusyError.
   */
  async claim(
    runId: string,
    check: (stored: StoredRun) => void,
  ): Promise<{ stored: StoredRun; release: () => void }> {
    if (typeof runId !== "string" || runId === "") throw new ConfigError("resume() needs a run id");
    const store = this.store;
    const release = reserveClaim(runId);
    if (!release)
      throw new RunBusyError(store.location, runId, "running", "this process is already running it.");
    try {
      const read = await store.loadRun(runId);
      check(read);
      const stored = await store.claimRun(runId, currentOwner(), {
        status: read.status,
        updatedAt: read.updatedAt,
      });
      return { stored, release };
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * Attaches persistence to a new or resumed run: takes the session (waiting for this process's
   * earlier run on it), replaces the messages with the session's history, creates the run record.
   */
  async attach(
    state: RunState<unknown>,
    run: {
      input: string;
      session?: string | undefined;
      history?: readonly Message[] | undefined;
      resumed?: StoredRun | undefined;
      /** Decisions on calls a paused run waits for (resume's approve and reject). */
      decisions?: readonly ApprovalDecision[];
      onApproval?: ApprovalHandler;
      rebuild: (history: readonly Message[]) => Message[];
      loop: Pick<LoopSettings, "endTools" | "textNotAllowed">;
      /** The tools a new run starts with, recorded so a resume can offer exactly those. */
      tools: RunTools;
    },
  ): Promise<AttachedRun> {
    const { memory, recall } = this.#config;
    if (memory || recall)
      state.view = new ContextView({ ...(memory && { memory }), ...(recall && { recall }) });
    if (run.session !== undefined && run.history !== undefined)
      throw new ConfigError("Give a run either `session` (history from the store) or `history`, not both");
    const gated = state.environment.registry.list().some((t) => t.needsApproval);
    if (gated || run.decisions) {
      state.approval = new ApprovalGate({
        ...(run.decisions && { decisions: run.decisions }),
        ...(run.onApproval && { handler: run.onApproval }),
      });
    }
    // A run that may pause for approval must be stored to be resumed, like a session run.
    const durable =
      this.#config.store !== undefined ||
      run.session !== undefined ||
      run.resumed !== undefined ||
      (gated && run.onApproval === undefined);
    if (!durable) return detached;

    const store = this.store;
    const unmark = markActive(state.runId);
    let releaseQueue = () => {};
    try {
      if (run.resumed) {
        state.durable = new DurableRun(store, state.runId, run.resumed.messages.length);
        state.guard?.restore(run.resumed.progress.guard);
      } else {
        let link: { sessionId: string; offset: number; base: number; version: number } | undefined;
        if (run.session !== undefined) {
          releaseQueue = await enterQueue(`${store.location}\u0000${run.session}`);
          const snapshot = await store.lockSession(run.session, state.runId);
          state.messages = run.rebuild(snapshot.messages);
          const offset = state.messages[0]?.role === "system" ? 1 : 0;
          link = {
            sessionId: run.session,
            offset,
            base: snapshot.messages.length,
            version: snapshot.version,
          };
        }
        try {
          await store.createRun({
            runId: state.runId,
            agent: this.#agent,
            model: state.model.id,
            input: run.input,
            owner: currentOwner(),
            messages: state.messages,
            usage: state.meter.snapshot(),
            progress: { pending: [] },
            tools: run.tools,
            ...(link && { session: link }),
          });
        } catch (error) {
          if (link) await store.unlockSession(link.sessionId, state.runId).catch(() => {});
          throw error;
        }
        state.durable = new DurableRun(store, state.runId, state.messages.length);
      }
    } catch (error) {
      unmark();
      releaseQueue();
      throw error;
    }
    const durableRun = state.durable;
    return {
      loop: run.resumed ? { resume: resumeHook(run.resumed, run.loop) } : {},
      succeeded: (s, outcome) => durableRun.finish(s, { status: "ok", ...jsonOutput(outcome.output) }),
      failed: async (s, error) => {
        const status = runStatusOf(error);
        // A pause is not an end: the checkpoint written at the pause is the record.
        if (status === "awaiting_approval") return;
        const code = error instanceof RunError ? error.code : "internal";
        const message = error instanceof Error ? error.message : String(error);
        try {
          await durableRun.finish(s, { status, error: { code, message } });
        } catch (storeError) {
          // The run's own error is what the caller must see; the store's failure is reported beside it.
          process.emitWarning(`glassloop: could not record the end of run ${s.runId}: ${String(storeError)}`);
        }
      },
      release: () => {
        unmark();
        releaseQueue();
      },
    };
  }
}

const detached: AttachedRun = {
  loop: {},
  succeeded: async () => {},
  failed: async () => {},
  release: () => {},
};

/** Waits for this process's earlier runs on the same session; returns the function that lets the next one in. */
async function enterQueue(key: string): Promise<() => void> {
  const before = sessionQueues.get(key) ?? Promise.resolve();
  let leave = () => {};
  const mine = new Promise<void>((resolve) => {
    leave = resolve;
  });
  const tail = before.then(() => mine);
  sessionQueues.set(key, tail);
  await before;
  let left = false;
  return () => {
    if (left) return;
    left = true;
    leave();
    if (sessionQueues.get(key) === tail) sessionQueues.delete(key);
  };
}

/** The output as stored: JSON values only (a class instance or a cycle is recorded as absent). */
function jsonOutput(output: unknown): { output?: unknown } {
  if (output === undefined) return {};
  try {
    JSON.stringify(output);
    return { output };
  } catch {
    return {};
  }
}
