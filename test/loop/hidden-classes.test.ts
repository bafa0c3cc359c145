import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const CHILD = fileURLToPath(new URL("./fixtures/usage-shapes.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

// On Node 20's V8, `{ ...source, key }` with a key the source lacks makes a new hidden class for
// every object once the code is optimized: about 2 µs each, and every later read or write of the
// record misses V8's caches. The usage records were built that way (a tenth of a streamed call's
// instructions). Timing belongs in the benchmarks; this checks the cause itself, in V8's terms.
it("usage records built the same way share one hidden class, run after run (and the check tells the spread pattern apart)", async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--allow-natives-syntax", "--import", "tsx", CHILD],
    { cwd: ROOT },
  );
  const shared = JSON.parse(stdout) as Record<string, boolean>;
  const records = ["empty", "progress", "snapshot", "step"];
  expect(shared).toEqual({
    ...Object.fromEntries(records.map((r) => [`${r} (priced)`, true])),
    ...Object.fromEntries(records.map((r) => [r, true])),
    "control: spread with a new key": false,
  });
}, 60_000);
