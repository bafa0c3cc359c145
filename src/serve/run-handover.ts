import { RunSuspendedError } from "../core/errors.js";
import { currentOwner } from "../store/owner.js";
import type { Store } from "../store/store.js";
import type { RunChannel } from "./run-channel.js";
import type { RunRecord, ServeLog } from "./serve-log.js";

/** How long a run handed over mid-step may take to stop before its claim in the log is released anyway. */
const STOP_WAIT_MS = 2_000;

/** One run driven here. */
export interface Drive {
  run: RunRecord;
  abort: AbortController;
  channel: RunChannel;
  /** `driving`; `handing-over`: stopping so another process takes it; `lost`: another process took it. */
  state: "driving" | "handing-over" | "lost";
  /** Hand the run over at its next step instead of running that step (a drain). */
  atNextStep: boolean;
  /** Settles when the run stopped here (its events are all handled). */
  stopped: Promise<void>;
  /** Settles when a hand-over is done: true once the log no longer names this process, false when the run ended first. */
  handedOver?: Promise<boolean>;
}

/** What a hand-over writes to: the log and store the run is driven on, and this process's driver id. */
export interface HandOverDeps {
  log: ServeLog;
  store: Store;
  driverId: string;
}

/**
 * Hands one run over. Its items from now on are held back, and it is suspended (stopped without
 * an end record, so it stays resumable at its last checkpoint); once it stopped, its claim in
 * the store is given up (the fencing token moves on, so nothing it might still write lands), and
 * then its claim in the log, announced, for another process to take at once. A run that ended
 * meanwhile (the store no longer holds it as running here) is not handed over: its held items
 * are written and it finishes here as usual. A store that cannot release a claim gets no
 * hand-over either: the run is aborted, as before there were hand-overs.
 */
export function handOver(drive: Drive, deps: HandOverDeps): Promise<boolean> {
  if (drive.handedOver) return drive.handedOver;
  if (drive.state !== "driving") return Promise.resolve(false);
  const { log, store, driverId } = deps;
  const runId = drive.run.runId;
  const release = store.releaseRun?.bind(store);
  if (!release) {
    drive.abort.abort(new Error("the server is stopping"));
    return Promise.resolve(false);
  }
  drive.state = "handing-over";
  drive.channel.hold();
  drive.abort.abort(new RunSuspendedError("the server is stopping; another process continues this run"));
  drive.handedOver = (async () => {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      drive.stopped,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STOP_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    const released = await release(runId, currentOwner()).catch((error: unknown) => {
      console.error(`glassloop serve: releasing run ${runId} in the store failed:`, error);
      // Its lease runs out instead; what it might still write is fenced off by the next claim.
      return true;
    });
    if (!released) {
      drive.state = "driving";
      drive.channel.unhold();
      return false;
    }
    drive.channel.seal();
    await drive.channel.flushed();
    await log.releaseRun(runId, driverId).catch((error: unknown) => {
      // Its lease runs out instead: another process takes the run then.
      console.error(`glassloop serve: releasing run ${runId} in the log failed:`, error);
    });
    return true;
  })();
  return drive.handedOver;
}
