import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/**
 * The directory of glassloop's own package.json, found by walking up from this module: the same
 * answer from the sources (src/…), the tsc output and the bundles (dist/*.mjs), whose depth differs.
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "package.json");
    if (
      existsSync(candidate) &&
      (JSON.parse(readFileSync(candidate, "utf8")) as { name?: string }).name === "glassloop"
    ) {
      root = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`glassloop: cannot find its own package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}
