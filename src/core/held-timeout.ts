/**
 * A deadline that fires even when nothing but `AbortSignal.any` refers to it. Node holds the
 * sources of `AbortSignal.any` weakly, so an `AbortSignal.timeout(ms)` passed only to `any` can be
 * garbage collected before it fires (nodejs/node#57736): under allocation pressure, such as a peer
 * that floods events, the deadline silently never came. Here a plain timer owns the controller;
 * `clear()` stops it once the work is done.
 */
export function heldTimeout(ms: number, what: string): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`${what}: no answer within ${ms} ms`, "TimeoutError")),
    ms,
  );
  // Like AbortSignal.timeout: the deadline alone does not keep the process alive.
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
