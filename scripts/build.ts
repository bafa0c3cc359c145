/**
 * Builds the package: the bundles behind package.json's "exports" and "bin" (tsdown), the
 * trace viewer's page and the chat page `glassloop serve` serves (Vite). Runs as `prepare` (every `npm ci`, a `github:` install: npm runs only `prepare` for a git dependency) and
 * `prepack` (`npm pack`, `npm publish`), so each part is rebuilt only when its inputs changed:
 * a second `npm ci` or the pack after it costs a hash of the sources, not a build.
 * `--force` (`npm run build`) rebuilds all. The tests' global setup imports `buildStale` for the pages.
 */

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "dist");
// Kept out of the tarball by package.json's "files" (`!dist/.build-hash`).
const STAMP = join(DIST, ".build-hash");

interface Part {
  name: "lib" | "viewer" | "chat";
  /** Files and folders whose content decides the output. */
  inputs: string[];
  /** Files that must exist for the part to count as built. */
  outputs: string[];
  build(): void;
}

interface PackageJson {
  exports: Record<string, { types: string; import: string }>;
  bin: Record<string, string>;
}

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as PackageJson;
const libOutputs = [
  ...Object.values(pkg.exports).flatMap((entry) => [entry.types, entry.import]),
  ...Object.values(pkg.bin),
].map((path) => join(ROOT, path));

const parts: Part[] = [
  {
    name: "lib",
    inputs: ["src", "package.json", "tsconfig.json", "tsdown.config.ts"],
    outputs: libOutputs,
    build: buildLib,
  },
  {
    name: "viewer",
    // The page bundles modules of src/trace and src/evals (the tests' global setup builds it through here too).
    inputs: ["viewer", "src/trace", "src/evals", "src/core"],
    outputs: [join(DIST, "viewer", "index.html")],
    build: () => buildPage("viewer"),
  },
  {
    name: "chat",
    // The chat page reuses the viewer's diff and response views, src/trace's formatting and src/core's request diff.
    inputs: ["chat", "viewer/src", "src/trace", "src/core"],
    outputs: [join(DIST, "chat", "index.html")],
    build: () => buildPage("chat"),
  },
];

/** Tests and type tests do not reach the output; editing one must not cost a rebuild. */
const isTest = (path: string) => /\.test(-d)?\.tsx?$/.test(path);

function files(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return isTest(path) ? [] : [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(path, name)));
}

function hashOf(inputs: string[]): string {
  const hash = createHash("sha256");
  for (const file of inputs.flatMap((input) => files(join(ROOT, input)))) {
    hash.update(relative(ROOT, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex");
}

function readStamp(): Record<string, string> {
  try {
    return JSON.parse(readFileSync(STAMP, "utf8")) as Record<string, string>;
  } catch {
    return {};
  }
}

function run(command: string, args: string[]): void {
  // Colors only where they render: `npm ci` logs piped to a file or a CI log with FORCE_COLOR set
  // would otherwise show the escape codes of tsdown's and Vite's messages raw.
  const env = { ...process.env };
  if (!process.stderr.isTTY) {
    delete env.FORCE_COLOR;
    env.NO_COLOR = "1";
  }
  const result = spawnSync(process.execPath, [command, ...args], { cwd: ROOT, stdio: "inherit", env });
  if (result.status !== 0) throw new Error(`${relative(ROOT, command)} failed (exit ${result.status})`);
}

const require = createRequire(import.meta.url);
const binOf = (name: string, bin: string) =>
  join(require.resolve(`${name}/package.json`, { paths: [ROOT] }), "..", bin);

function buildLib(): void {
  // tsdown keeps dist/ (the viewer lives there), so bundles of an earlier build, whose chunk
  // names carry a content hash, are removed first or they would end up in the tarball.
  for (const name of existsSync(DIST) ? readdirSync(DIST) : []) {
    if (name !== "viewer" && name !== "chat" && name !== ".build-hash")
      rmSync(join(DIST, name), { recursive: true, force: true });
  }
  run(binOf("tsdown", "dist/run.mjs"), []);
  const pages = [join(DIST, "viewer") + sep, join(DIST, "chat") + sep];
  for (const file of files(DIST))
    if (file.endsWith(".mjs") && !pages.some((page) => file.startsWith(page))) asciiOnly(file);
}

/**
 * Escapes every character outside ASCII in a bundle (`…` becomes `\u2026`, in a comment, a string
 * or a template alike: the same text to JavaScript). A module's source stays on V8's heap for as long
 * as the module is loaded, and a single character above U+00FF makes V8 hold the whole file at two
 * bytes per character and scan it as UTF-16: a few dashes and ellipses in comments cost 0.3 MB of
 * heap and 3 % of the import's instructions (docs/benchmarks.md). Columns of the source map shift
 * on the few lines that had such a character.
 */
function asciiOnly(file: string): void {
  const text = readFileSync(file, "utf8");
  const escaped = text.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  if (escaped !== text) writeFileSync(file, escaped);
}

/** Builds a page (its folder holds vite.config.ts) into dist/<page>. */
function buildPage(page: "viewer" | "chat"): void {
  // Built aside and moved in, so a test serving the page meanwhile never sees half of it.
  const aside = join(DIST, `${page}.building-${process.pid}`);
  run(binOf("vite", "bin/vite.js"), [
    "build",
    "--config",
    `${page}/vite.config.ts`,
    "--outDir",
    aside,
    "--logLevel",
    "warn",
  ]);
  rmSync(join(DIST, page), { recursive: true, force: true });
  renameSync(aside, join(DIST, page));
}

/**
 * Whether `name` was built from the sources as they are now (same rule as a build that would skip
 * it). The CLI tests run the bundled `dist/cli/main.mjs` when the library is, which starts in a
 * third of the time src/ takes through tsx, and src/ otherwise.
 */
export function upToDate(name: Part["name"]): boolean {
  const part = parts.find((p) => p.name === name);
  if (!part?.outputs.every((file) => existsSync(file))) return false;
  return readStamp()[name] === hashOf(part.inputs);
}

/** Builds the named parts (all by default) whose inputs changed since their last build, or all of them with `force`. */
export function buildStale(
  names: Part["name"][] = ["lib", "viewer", "chat"],
  options: { force?: boolean } = {},
): void {
  const stamp = readStamp();
  for (const part of parts.filter((p) => names.includes(p.name))) {
    const hash = hashOf(part.inputs);
    const built = part.outputs.every((file) => existsSync(file));
    if (!options.force && built && stamp[part.name] === hash) {
      console.log(`glassloop build: ${part.name} is up to date`);
      continue;
    }
    const started = performance.now();
    part.build();
    stamp[part.name] = hash;
    writeFileSync(STAMP, `${JSON.stringify(stamp)}\n`);
    console.log(
      `glassloop build: ${part.name} built in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  buildStale(undefined, { force: process.argv.includes("--force") });
}
