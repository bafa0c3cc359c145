// The CPU of this process's main thread alone, shared by the floor's harness (plain JavaScript, run
// without a TypeScript loader) and bench/pg-count.ts. process.cpuUsage() adds V8's background
// threads: the optimizing compiler and the collector's helpers, which a young process keeps busy
// with the code it runs.
import { readFileSync } from "node:fs";

/** The main thread's CPU so far, in ms (Linux: utime + stime in /proc, 10 ms ticks); undefined elsewhere. */
export function mainThreadMs() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}
