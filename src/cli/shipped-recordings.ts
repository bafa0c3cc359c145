import { isAbsolute, join, relative } from "node:path";
import { packageRoot } from "../core/package-root.js";

/** The task of the shipped calculator recording: the one input it replays. */
export const RECORDED_TASK = "Add 200 and 10, then multiply the result by 2.";

/**
 * Commands that try `run` and `eval` with no key, on the recordings shipped with glassloop
 * (recordings/ of its package), written as the user would type them from `cwd`: a path under it
 * stays relative (`node_modules/glassloop/recordings/…`, or `recordings/…` in a clone), any
 * other is absolute. Printed where a command finds no model, so a newcomer finds them unaided.
 */
export function keyFreeCommands(cwd: string): { run: string; eval: string } {
  const root = packageRoot();
  const rel = relative(cwd, root);
  const base = rel === "" ? "" : rel.startsWith("..") || isAbsolute(rel) ? root : rel;
  const path = (...parts: string[]) => shellWord(join(base, ...parts));
  return {
    run: `glassloop run --model replay:${path("recordings", "calculator.jsonl")} "${RECORDED_TASK}"`,
    eval: `glassloop eval ${path("recordings", "evals", "calculator.eval.mjs")} --replay ${path("recordings", "evals", "calculator")}`,
  };
}

/** A path as one shell word: quoted only when it holds a character a shell would split or expand. */
function shellWord(path: string): string {
  return /^[\w./:@+-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
