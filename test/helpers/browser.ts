import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { describe } from "vitest";

/** Debian's chromium; `.ci/run` installs it when missing. GLASSLOOP_CHROMIUM points elsewhere. */
export const CHROMIUM = process.env.GLASSLOOP_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Why the browser tests are skipped here, or undefined when they run. playwright-core's own browser
 * cannot be downloaded offline, so the tests drive a chromium already on the machine; without one
 * they are skipped (a developer machine), except in CI or with GLASSLOOP_REQUIRE_CHROMIUM=1 (set by
 * .ci/run), where that is a failure.
 */
export const BROWSER_SKIP: string | undefined = (() => {
  if (existsSync(CHROMIUM)) return undefined;
  if (process.env.CI === "true" || process.env.GLASSLOOP_REQUIRE_CHROMIUM === "1")
    throw new Error(
      `CI=true or GLASSLOOP_REQUIRE_CHROMIUM=1 but there is no chromium at ${CHROMIUM}: install it with "apt-get install -y chromium" (.ci/run does this)`,
    );
  return `Browser tests skipped (*.browser.test.ts): no chromium at ${CHROMIUM}; run them with "apt-get install -y chromium" or GLASSLOOP_CHROMIUM=/path/to/chromium`;
})();

/** `describe` for a suite that drives chromium: skipped, with BROWSER_SKIP's reason, where there is none. */
export function describeBrowser(name: string, body: () => void): void {
  describe.skipIf(BROWSER_SKIP !== undefined)(name, body);
}

/** Flags that keep the browser from reaching anything but the page under test. */
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A headless chromium with a fresh profile; every request off 127.0.0.1 is blocked and recorded. */
export async function openBrowser(): Promise<{
  context: BrowserContext;
  offsite: string[];
  close: () => Promise<void>;
}> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No chromium at ${CHROMIUM}: install it with "apt-get install -y chromium" (.ci/run does this).`,
    );
  }
  const profile = mkdtempSync(join(tmpdir(), "glassloop-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1440, height: 1000 },
  });
  const offsite: string[] = [];
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === "127.0.0.1" || url.protocol === "data:") return route.continue();
    offsite.push(url.href);
    return route.abort();
  });
  return {
    context,
    offsite,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
