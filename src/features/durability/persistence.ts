import { ConfigError } from "../../core/errors.js";
import { scrubberFor } from "../../core/sink.js";
import { lastUserText, type Message } from "../../core/vocabulary/messages.js";
import type { RunState } from "../../loop/hooks.js";
import { RunBusyError } from "../../store/errors.js";
import { currentOwner, markActive, reserveClaim } from "../../store/owner.js";
import { redactingStore } from "../../store/redacting-store.js";
import { assertClaimable } from "../../store/run-claim.js";
import { deferredDefaultStore } from "../../store/sqlite/deferred-default-store.js";
import type { RunTools, Store, StoredRun } from "../../store/store.js";
import type { LoopGuard } from "../loop-guard.js";
import { DurableRun } from "./durable.js";

/** What persistence reads of an agent's configuration: its store, if it was given one. */
export interface PersistenceConfig {
  /** Where sessions, checkpoints and notes live; with a store every run is durable. */
  store?: Store;
}

/** A run's durability, once attached: its checkpoints, and the transcript it starts from. */
export interface AttachedRun {
  /** The run's checkpoints. */
  durable: DurableRun;
  /** The transcript to start from, when a session's history replaced the one given. */
  messages?: Message[];
  /** Frees the session for the next run of this process; always called, success or not. */
  release(): void;
}

// Runs on one session in this process wait for each other instead of failing.
const sessionQueues = new Map<string, Promise<void>>();

const wrappers = new WeakMap<Store, Store>();

/** `store` behind the store sink, scrubbing with this process's environment (one wrapper per store). */
function scrubbed(store: Store): Store {
  let wrapped = wrappers.get(store);
  if (!wrapped) {
    wrapped = redactingStore(store, scrubberFor(process.env));
    wrappers.set(store, wrapped);
  }
  return wrapped;
}

/** Wires a run to its store: checkpoints, sessions, claims for resume. */
export class Persistence {
  readonly #config: PersistenceConfig;
  readonly #agent: string;

  constructor(config: PersistenceConfig, agent: string) {
    this.#config = config;
    this.#agent = agent;
  }

  /**
   * The configured store, or the default SQLite file, loaded and opened on its first call; as
   * the store sink: every write scrubbed of the process's secrets (`redactingStore`), whoever
   * made the store. The same store gets the same wrapper, so `agent.store` keeps its identity.
   */
  get store(): Store {
    return scrubbed(this.#config.store ?? deferredDefaultStore());
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
      // A run that ended or that a live process drives is refused as such first: the caller's
      // checks (decisions on its pending calls) would otherwise fail on a run someone else
      // already moved on, and report the lost race as a bad decision.
      assertClaimable(store.location, runId, {
        status: read.status,
        owner_pid: read.owner.pid,
        owner_host: read.owner.host,
        lease_until: read.owner.leaseUntil ?? null,
        updated_at: read.updatedAt,
      });
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
   * Makes a new or resumed run durable (the agent attaches it only to a run that must be: a store
   * was given, the run continues a session or a stored run, or it may pause for approval): takes
   * the session (waiting for this process's earlier run on it) and its history, and creates the
   * run record. `guard` is the run's loop guard, checkpointed with its progress and restored on
   * resume.
   */
  async attach(
    state: RunState<unknown>,
    run: {
      /** The new user message; null when the run continues its history without one. */
      input: string | null;
      session?: string | undefined;
      history?: readonly Message[] | undefined;
      resumed?: StoredRun | undefined;
      guard: LoopGuard | undefined;
      rebuild: (history: readonly Message[]) => Message[];
      /** The tools a new run starts with, recorded so a resume can offer exactly those. */
      tools: RunTools;
    },
  ): Promise<AttachedRun> {
    if (run.session !== undefined && run.history !== undefined)
      throw new ConfigError("Give a run either `session` (history from the store) or `history`, not both");
    const store = this.store;
    const unmark = markActive(state.runId);
    let releaseQueue = () => {};
    const release = () => {
      unmark();
      releaseQueue();
    };
    try {
      if (run.resumed) {
        run.guard?.restore(run.resumed.progress.guard);
        return {
          durable: new DurableRun(
            store,
            state.runId,
            run.resumed.messages.length,
            run.guard,
            run.resumed.fence,
          ),
          release,
        };
      }
      let messages = state.messages;
      let link: { sessionId: string; offset: number; base: number; version: number } | undefined;
      if (run.session !== undefined) {
        releaseQueue = await enterQueue(`${store.location}\u0000${run.session}`);
        const snapshot = await store.lockSession(run.session, state.runId);
        try {
          messages = run.rebuild(snapshot.messages);
        } catch (error) {
          // A session this run cannot start from (nothing to continue) is left as it was, unlocked.
          await store.unlockSession(run.session, state.runId).catch(() => {});
          throw error;
        }
        const offset = messages[0]?.role === "system" ? 1 : 0;
        link = { sessionId: run.session, offset, base: snapshot.messages.length, version: snapshot.version };
      }
      try {
        await store.createRun({
          runId: state.runId,
          agent: this.#agent,
          model: state.model.id,
          input: run.input ?? lastUserText(messages),
          owner: currentOwner(),
          messages,
          usage: state.meter.snapshot(),
          progress: { pending: [] },
          tools: run.tools,
          ...(link && { session: link }),
        });
      } catch (error) {
        if (link) await store.unlockSession(link.sessionId, state.runId).catch(() => {});
        throw error;
      }
      // A new run's fencing token is 0 until a claim moves it on.
      const attached = new DurableRun(store, state.runId, messages.length, run.guard, 0);
      return link ? { durable: attached, messages, release } : { durable: attached, release };
    } catch (error) {
      release();
      throw error;
    }
  }
}

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
