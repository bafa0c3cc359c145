import { lstat, mkdir, realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { ToolError } from "../../core/errors.js";

/**
 * Resolves `path` (relative, from the model) inside `root`, refusing anything that could leave it:
 * absolute paths, `..` segments, NUL bytes, and symlinks whose target is outside the root. The
 * returned path is the real one (symlinks inside the root resolved), so the caller opens exactly
 * what was checked.
 */
export async function resolveInside(
  root: string,
  path: string,
  mode: "existing" | "create",
): Promise<{ real: string; shown: string }> {
  checkShape(path);
  const rootReal = await realRoot(root);
  const target = resolve(rootReal, path === "" ? "." : path);
  if (mode === "existing") {
    const real = await realpath(target).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR")
        throw new ToolError(`No such file or directory: ${path}`);
      throw new ToolError(`Cannot access ${path}: ${error.code ?? "error"}`);
    });
    ensureInside(rootReal, real, path);
    return { real, shown: shown(rootReal, target) };
  }
  // A file to create: its nearest existing ancestor must be inside the root, and an existing
  // target (a symlink too) must resolve inside it.
  const existing = await lstat(target).catch(() => undefined);
  if (existing) {
    if (existing.isDirectory()) throw new ToolError(`${path} is a directory`);
    const real = await realpath(target).catch(() => {
      throw new ToolError(`Refused: ${path} is a symlink to a file that does not exist`);
    });
    ensureInside(rootReal, real, path);
    // A FIFO, socket or device is refused before anything opens it (opening a FIFO blocks).
    const info = await stat(real).catch(() => undefined);
    if (info?.isDirectory()) throw new ToolError(`${path} is a directory`);
    if (!info?.isFile()) throw new ToolError(`Refused: ${path} is not a regular file`);
    return { real, shown: shown(rootReal, target) };
  }
  let ancestor = dirname(target);
  while (!(await lstat(ancestor).catch(() => undefined))) ancestor = dirname(ancestor);
  ensureInside(rootReal, await realpath(ancestor), path);
  await mkdir(dirname(target), { recursive: true });
  // Directories created just now contain no symlinks; check the parent once more anyway.
  ensureInside(rootReal, await realpath(dirname(target)), path);
  return { real: target, shown: shown(rootReal, target) };
}

function checkShape(path: string): void {
  if (path.includes("\0")) throw new ToolError("Refused: the path contains a NUL byte");
  if (isAbsolute(path) || /^[a-zA-Z]:/.test(path) || path.startsWith("\\") || path.startsWith("~")) {
    throw new ToolError(`Refused: ${JSON.stringify(path)} is absolute; use a path relative to the root`);
  }
  if (path.split(/[\\/]+/).includes("..")) {
    throw new ToolError(`Refused: ${JSON.stringify(path)} contains ".."; paths must stay inside the root`);
  }
}

async function realRoot(root: string): Promise<string> {
  try {
    return await realpath(root);
  } catch {
    throw new ToolError(`The files root ${root} does not exist`);
  }
}

function ensureInside(rootReal: string, real: string, path: string): void {
  if (real !== rootReal && !real.startsWith(rootReal.endsWith(sep) ? rootReal : rootReal + sep)) {
    throw new ToolError(`Refused: ${JSON.stringify(path)} leads outside the root (through a symlink)`);
  }
}

function shown(rootReal: string, target: string): string {
  return relative(rootReal, target) || ".";
}
