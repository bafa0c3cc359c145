import { buildStale } from "../../scripts/build.js";

/**
 * Vitest global setup: builds the trace viewer's page and the chat page (a clean clone in CI has
 * none) unless they are fresh. The same build and freshness rule as `npm ci`'s prepare and `npm pack`'s prepack
 * (scripts/build.ts: a hash of viewer/, src/trace and src/evals), so neither rebuilds what the
 * other just built while a browser test is serving the page.
 */
export default function buildViewer(): void {
  buildStale(["viewer", "chat"]);
}
