import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** What `npm pack --json` says about the tarball. */
export interface PackResult {
  filename: string;
  files: { path: string; size: number }[];
}

/** A temporary project with the packed glassloop installed (production dependencies only). */
export interface InstalledProject {
  dir: string;
  tarball: string;
  files: string[];
  installOutput: string;
}

/** Runs a command with npm's noise (update notices, funding, audit) off; never throws. */
export function sh(
  command: string,
  args: string[],
  cwd: string,
  timeout = 180_000,
): SpawnSyncReturns<string> {
  return spawnSync(command, args, {
    cwd,
    encoding: "utf8",
    timeout,
    env: {
      ...process.env,
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_update_notifier: "false",
      // The suite's own npm lifecycle variables would leak into the child npm otherwise.
      npm_lifecycle_event: "",
      npm_lifecycle_script: "",
    },
  });
}

const output = (run: SpawnSyncReturns<string>) => `${run.stdout ?? ""}${run.stderr ?? ""}${run.error ?? ""}`;

/**
 * `npm pack` of the working tree (its `prepack` builds dist/ when the sources changed), then an
 * install of the tarball into a fresh project outside the repository, so nothing resolves to the
 * repository's own node_modules.
 */
export function packAndInstall(): InstalledProject {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-installed-"));
  const packDir = join(dir, "pack");
  mkdirSync(packDir);
  const pack = sh("npm", ["pack", "--json", "--pack-destination", packDir], ROOT, 300_000);
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${output(pack)}`);
  // prepack's build log goes to stdout before the JSON.
  const json = pack.stdout.slice(pack.stdout.indexOf("[\n"));
  const [result] = JSON.parse(json) as PackResult[];
  if (!result) throw new Error(`npm pack printed no result:\n${pack.stdout}`);
  const tarball = join(packDir, result.filename);

  const project = join(dir, "app");
  mkdirSync(project);
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: "glassloop-user", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
  );
  // better-sqlite3's install script downloads a prebuilt binary from GitHub or compiles SQLite
  // (minutes on two cores); neither belongs in a test. Scripts are skipped and the binary the
  // repository's own install produced for this very version is copied in below.
  const base = ["install", "--ignore-scripts", "--no-package-lock", tarball];
  let install = sh("npm", [...base, "--offline"], project);
  if (install.status !== 0) {
    // The cache holds every tarball after `npm ci`, but not always the registry metadata a fresh
    // resolve needs; then the registry answers what the cache lacks.
    install = sh("npm", [...base, "--prefer-offline"], project);
  }
  if (install.status !== 0) throw new Error(`npm install of the tarball failed:\n${output(install)}`);
  copySqliteBinary(project);
  return {
    dir: project,
    tarball,
    files: result.files.map((f) => f.path),
    installOutput: output(install),
  };
}

function copySqliteBinary(project: string): void {
  const relative = "node_modules/better-sqlite3/build/Release/better_sqlite3.node";
  const from = join(ROOT, relative);
  if (!existsSync(from)) throw new Error(`${from} is missing: run npm ci in the repository first`);
  const to = join(project, relative);
  mkdirSync(join(to, ".."), { recursive: true });
  copyFileSync(from, to);
}

/** Bytes under `path`, symlinks not followed (what `du` would count, without block rounding). */
export function sizeOf(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}
