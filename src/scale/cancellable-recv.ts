import { loadDbosExecutor } from "./sdk.js";

/**
 * Wakes a run's message wait (`DBOS.recv` on `topic`, under way) when the run is cancelled, until
 * the returned function is called.
 *
 * Why: DBOS 5.3's recv is woken at once by a message (NOTIFY), but looks for a cancel only between
 * reads of its message table, every 10 s (`dbPollingIntervalEventMs`). A run cancelled while it
 * waited for a person (an approval, an answer) stayed in its wait up to 10 s, and a worker told
 * to stop meanwhile waited for it as long. DBOS's cancel watcher (one query a second for all the
 * watched runs of the process, the one its steps use) tells of the cancel; waking the wait then
 * makes recv look again, find the cancel, and end the run as cancelled. A wake without a cancel
 * (a cancel reversed) only makes recv look once more and wait on.
 */
export async function wakeOnCancel(runId: string, topic: string): Promise<() => void> {
  const { DBOSExecutor } = await loadDbosExecutor();
  const system = DBOSExecutor.globalInstance?.systemDatabase;
  if (!system) return () => {};
  const watch = system.watchForCancellation(runId);
  // The key recv's wait listens on (DBOS's notifications of a message for this run and topic).
  const wake = () => system.notificationsMap.callCallbacks(`${runId}::${topic}`);
  const signal = watch.signal;
  if (signal.aborted) wake();
  else signal.addEventListener("abort", wake, { once: true });
  return () => {
    signal.removeEventListener("abort", wake);
    watch.release();
  };
}
