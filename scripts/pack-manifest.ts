/**
 * Keeps install-time scripts out of the published package.json: `tsx scripts/pack-manifest.ts
 * strip` (the end of `prepack`) and `restore` (`postpack`), around `npm pack` and `npm publish`.
 *
 * The repository needs `prepare`: it builds dist/ on a clone's `npm ci` and on `npm i
 * github:…`, where npm runs a git dependency's `prepare` and never its `prepack` (pacote's
 * directory fetcher runs `prepare` alone). A user of the tarball must not meet it: npm lists the
 * `prepare` of any package that does not come from the registry (a tarball file included) as an
 * install script awaiting approval, although it never runs it there, and the build it would run
 * needs the repository's sources. So the tarball's package.json is written without it, and the
 * original is put back byte for byte after packing. A pack that died between the two leaves
 * `package.json.prepack` beside package.json; the next `strip` or `restore` puts it back first.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The scripts npm may run when a package is installed (for a non-registry source, `prepare` too). */
export const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"] as const;

/** Puts back the package.json a pack set aside; true when there was one. */
export function restoreManifest(root = ROOT): boolean {
  const saved = join(root, "package.json.prepack");
  if (!existsSync(saved)) return false;
  renameSync(saved, join(root, "package.json"));
  return true;
}

/** Sets package.json aside and writes it without install-time scripts, for the tarball. */
export function stripManifest(root = ROOT): string[] {
  restoreManifest(root);
  const file = join(root, "package.json");
  const text = readFileSync(file, "utf8");
  const manifest = JSON.parse(text) as { scripts?: Record<string, string> };
  const removed = INSTALL_SCRIPTS.filter((name) => manifest.scripts?.[name] !== undefined);
  if (removed.length === 0) return [];
  for (const name of removed) delete manifest.scripts?.[name];
  writeFileSync(join(root, "package.json.prepack"), text);
  // Written beside and renamed, so a reader of package.json meanwhile sees one whole file or the other.
  const next = join(root, "package.json.next");
  writeFileSync(next, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(next, file);
  return removed;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const verb = process.argv[2];
  if (verb === "strip") {
    const removed = stripManifest();
    if (removed.length > 0)
      process.stderr.write(`glassloop pack: the packed package.json has no ${removed.join(", ")} script\n`);
  } else if (verb === "restore") {
    restoreManifest();
  } else {
    process.stderr.write("usage: tsx scripts/pack-manifest.ts strip|restore\n");
    process.exit(2);
  }
}
