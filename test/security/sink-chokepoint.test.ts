/**
 * The redaction chokepoint (docs/security.md): every place values leave the process is a sink
 * made with `redactingSink` (src/core/sink.ts). The scan finds every source file that
 * writes out of the process (files, descriptors, DBOS steps) and requires it to write through a
 * sink, or to be listed below with what it writes and why that is no leak; a new output channel
 * fails here until it is one or the other.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../src");

/** Calls that put bytes outside the process. SQL writes are the stores', covered below. */
const OUTPUT =
  /\b(writeFileSync|writeFile|appendFileSync|appendFile|writeSync|createWriteStream)\(|\.runStep\(/;

/** A file that writes through a sink imports the sink module. */
const THROUGH_SINK = /from "[./]*(core\/)?sink\.js"/;

/** Writers that are no sink of events or results, each with why. */
const NOT_A_SINK: Record<string, string> = {
  "tools/builtin/files.ts":
    "the files tool's own effect: what the model writes into the sandbox the user gave it",
  "evals/result-file.ts": "writeResult is called only by evaluate's `eval result` sink (checked below)",
};

function sources(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(entry.name)) files.push(path);
    }
  };
  walk(SRC);
  return files;
}

describe("every way out of the process is a redacting sink", () => {
  it("each file that writes out writes through a sink, or is listed with why it is not one", () => {
    const writers = sources()
      .filter((file) => OUTPUT.test(readFileSync(file, "utf8")))
      .map((file) => relative(SRC, file));
    // The newer sinks are among them: traces, DBOS step outputs.
    expect(writers).toEqual(expect.arrayContaining(["trace/writer.ts", "scale/run-steps.ts"]));
    const unguarded = writers.filter(
      (file) => !THROUGH_SINK.test(readFileSync(join(SRC, file), "utf8")) && !(file in NOT_A_SINK),
    );
    expect(unguarded).toEqual([]);
    // The list only holds files that still write: a stale entry would hide a new writer's name.
    for (const file of Object.keys(NOT_A_SINK)) expect(writers).toContain(file);
  });

  it("the sinks that are no file write: the workflow's output, run events, eval results, the terminal", () => {
    for (const [file, name] of [
      ["scale/workflow.ts", "dbos workflow output"],
      ["scale/events.ts", "run events"],
      ["scale/run-steps.ts", "dbos step output"],
      ["evals/evaluate.ts", "eval result"],
      ["cli/terminal-text.ts", "terminal"],
      ["trace/writer.ts", "trace"],
    ] as const) {
      expect(readFileSync(join(SRC, file), "utf8")).toMatch(
        new RegExp(`redacting(Json)?Sink\\(\\s*"${name}"`),
      );
    }
    // result.json is written from inside the eval result sink only.
    const callers = sources().filter((f) => /\bwriteResult\(/.test(readFileSync(f, "utf8")));
    expect(callers.map((f) => relative(SRC, f)).sort()).toEqual([
      "evals/evaluate.ts",
      "evals/result-file.ts",
    ]);
    // A worker's store is wrapped in the store sink before any run writes to it.
    expect(readFileSync(join(SRC, "scale/worker.ts"), "utf8")).toMatch(
      /store: redactingStore\(store, scrubber\)/,
    );
  });
});
