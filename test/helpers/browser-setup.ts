import { BROWSER_SKIP } from "./browser.js";

/**
 * Vitest global setup: says once, for the whole run, that the browser tests were not run and how to
 * run them (or fails the run where CI requires them; see BROWSER_SKIP).
 */
export default function browserSetup(): void {
  if (BROWSER_SKIP) console.warn(BROWSER_SKIP);
}
