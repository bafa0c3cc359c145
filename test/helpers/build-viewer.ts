import { existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const page = join(root, "dist/viewer/index.html");
// The page bundles these: a change to any of them makes the built page stale.
const sources = [join(root, "viewer"), join(root, "src/trace"), join(root, "src/evals")];

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/** Vitest global setup: builds the trace viewer (a clean clone in CI has none) unless it is fresh. */
export default async function buildViewer(): Promise<void> {
  if (existsSync(page) && statSync(page).mtimeMs >= Math.max(...sources.map(newest))) return;
  const { build } = await import("vite");
  // Built aside and moved in, so a test run beside this one never serves a half-written page.
  const aside = join(root, `dist/viewer.building-${process.pid}`);
  await build({
    configFile: join(root, "viewer/vite.config.ts"),
    logLevel: "warn",
    build: { outDir: aside },
  });
  rmSync(join(root, "dist/viewer"), { recursive: true, force: true });
  renameSync(aside, join(root, "dist/viewer"));
}
