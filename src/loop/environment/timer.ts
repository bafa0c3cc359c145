/** The longest delay `setTimeout` honours; Node fires longer ones after 1 ms. */
const MAX_DELAY_MS = 2_147_483_647;

/**
 * Calls `fire` after `ms` and returns the canceller. A delay past what timers can hold
 * (`Infinity`, or more than ~24.8 days) sets no timer at all, instead of firing at once.
 */
export function startTimer(ms: number, fire: () => void): () => void {
  if (!(ms <= MAX_DELAY_MS)) return () => {};
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
}
