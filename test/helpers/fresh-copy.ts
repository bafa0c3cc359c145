/**
 * A fresh copy of the repository, as a clone would have it after `npm ci`: the files git tracks
 * (and new ones it does not ignore) copied into a temporary directory, nothing of this working
 * tree's runs (.glassloop/, test-artifacts/). node_modules/, dist/ and src/ are links to this
 * tree's, so the copy costs a second, not an install and a build, and the CLI (built or from the
 * sources) and the copy's `import "glassloop"` load the same files: one glassloop in a process.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ROOT } from "./packed.js";

const LINKED = ["node_modules", "dist", "src"];

/** Copies the repository into a new temporary directory and returns its path. */
export function freshCopy(prefix = "glassloop-clone-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const file of listed.split("\0")) {
    if (file === "" || LINKED.some((top) => file === top || file.startsWith(`${top}/`))) continue;
    const from = join(ROOT, file);
    // A file deleted in the working tree but still in the index is not part of this tree.
    if (!existsSync(from) || !lstatSync(from).isFile()) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    copyFileSync(from, join(dir, file));
  }
  for (const top of LINKED)
    if (existsSync(join(ROOT, top))) symlinkSync(join(ROOT, top), join(dir, top), "dir");
  return dir;
}
