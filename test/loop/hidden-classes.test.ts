import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * What a fixture prints: each record's name, and whether two builds of it share a hidden class.
 * V8 compiles on the main thread (`--no-concurrent-recompilation`): the optimized code is in place
 * as soon as V8 decides to optimize, rather than whenever a background job ends. On a loaded
 * machine the job could end after the fixture's last call, and the controls would read unoptimized
 * code.
 */
async function shapes(name: string): Promise<Record<string, boolean>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--allow-natives-syntax", "--no-concurrent-recompilation", "--import", "tsx", fixture(name)],
    { cwd: ROOT },
  );
  return JSON.parse(stdout) as Record<string, boolean>;
}

// On Node 20's V8, `{ ...source, key }` with a key the source lacks makes a new hidden class for
// every object once the code is optimized: about 2 µs each, and every later read or write of the
// record misses V8's caches. The usage records were built that way (a tenth of a streamed call's
// instructions). Timing belongs in the benchmarks; this checks the cause itself, in V8's terms.
it("usage records built the same way share one hidden class, run after run (and the check tells the spread pattern apart)", async () => {
  const shared = await shapes("usage-shapes.ts");
  const records = ["empty", "progress", "snapshot", "step"];
  expect(shared).toEqual({
    ...Object.fromEntries(records.map((r) => [`${r} (priced)`, true])),
    ...Object.fromEntries(records.map((r) => [r, true])),
    "control: spread with a new key": false,
  });
}, 60_000);

it("every record a streamed run hands out (each event, what it carries, the result and its messages) has the same hidden class run after run", async () => {
  const shared = await shapes("run-shapes.ts");
  // Every event kind of a tool call and an answer is there, and each one kept its class.
  expect(Object.keys(shared)).toEqual(
    expect.arrayContaining(["event model_request #1", "event step_end #2.usage", "result.usage"]),
  );
  expect(Object.entries(shared).filter(([, same]) => !same)).toEqual([]);
}, 60_000);

// `Array.prototype.map` builds a packed array in the builtin and a holey one once TurboFan inlines
// it, so the arrays a model call passes along changed class a few hundred runs in, and the hot
// functions reading them (`takeTurn`, `runStep`, `callHttp`…) were deoptimized and compiled again.
it("arrays handed between a model call's hot functions keep one hidden class from the first call to the optimized ones (and the check tells map's apart)", async () => {
  expect(await shapes("array-shapes.ts")).toEqual({
    "registry.specs()": true,
    "parseChatCompletion().toolCalls": true,
    packedMap: true,
    "control: Array.prototype.map": false,
  });
}, 60_000);
