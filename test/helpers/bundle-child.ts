/**
 * Child processes of the tests, written in TypeScript, bundled into ES modules (with esbuild,
 * packages left as imports) so they start with plain `node`. Through tsx a child pays its loader
 * for each of the few hundred source modules it imports, about 1.5 s of CPU on a 2-core machine; a
 * bundle starts in about 0.4 s, which the tests that kill and restart children dozens of times add up.
 */
import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import { build } from "esbuild";
import { ROOT } from "./packed.js";

const built = new Map<string, Promise<string[]>>();
let sets = 0;

/** The path of `entry` (an absolute .ts path) bundled for `node <path> …`; built once per test file. */
export async function bundleChild(entry: string): Promise<string> {
  const [path] = await bundleChildren([entry]);
  return path as string;
}

/**
 * `entries` bundled together, their shared modules in shared chunks, so one process that imports
 * several of them (the CLI, then the module it loads) holds one copy of each source module.
 * Returns the bundles' paths, in the order of `entries`.
 */
export function bundleChildren(entries: string[]): Promise<string[]> {
  const key = entries.join("\n");
  let paths = built.get(key);
  if (!paths) {
    paths = bundleOnce(entries);
    built.set(key, paths);
  }
  return paths;
}

async function bundleOnce(entries: string[]): Promise<string[]> {
  // Inside the repository, so the bundles' imports resolve to its node_modules; a folder per test
  // process and set, as files running at once may bundle the same child.
  const outdir = join(ROOT, "test-artifacts", "children", `${process.pid}-${++sets}`);
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints: entries,
    outdir,
    entryNames: "[name]",
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    tsconfig: join(ROOT, "tsconfig.json"),
    logLevel: "error",
  });
  return entries.map((entry) => join(outdir, `${basename(entry, ".ts")}.mjs`));
}
