/**
 * Waits `ms`, or rejects with the signal's reason as soon as `signal` fires (at once when it
 * already has). The timer's listener is removed when it ends, so a long-lived signal (a run's)
 * does not collect one listener per wait.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
