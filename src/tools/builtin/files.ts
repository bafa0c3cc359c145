import { constants } from "node:fs";
import { type FileHandle, open, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { ToolError } from "../../core/errors.js";
import { READ_CAPS } from "../../core/read-caps.js";
import { type Tool, tool } from "../tool.js";
import { resolveInside } from "./safe-path.js";

/** Options of the `files` tools. */
export interface FilesOptions {
  /** The one directory the tools may touch; nothing outside it is read, listed or written. */
  root: string;
  /** Longest read returned, in bytes (default 100,000); longer files are cut with a marker. */
  maxReadBytes?: number;
  /** Largest write accepted, in bytes (default 1,000,000). */
  maxWriteBytes?: number;
  /** Most entries a listing shows (default 500). */
  maxEntries?: number;
}

// O_NONBLOCK: opening a FIFO planted after the check returns at once (ENXIO for a write without a
// reader) instead of holding one of libuv's four threads forever; regular files ignore it.
const WRITE_FLAGS =
  constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const DEFAULTS = { maxReadBytes: READ_CAPS.fileTool, maxWriteBytes: 1_000_000, maxEntries: 500 };

const pathField = z.string().describe("A path relative to the root, e.g. notes/todo.md");
const readInput = z.object({ path: pathField });
const listInput = z.object({
  path: pathField.default(".").describe('A directory relative to the root ("." for the root)'),
});
const writeInput = z.object({
  path: pathField,
  content: z.string().describe("The whole new content of the file"),
});

/** `read_file`, `list_files` and `write_file`, confined to `options.root`. */
export function filesTools(
  options: FilesOptions,
): [
  Tool<z.output<typeof readInput>, unknown, string>,
  Tool<z.output<typeof listInput>, unknown, string>,
  Tool<z.output<typeof writeInput>, unknown, string>,
] {
  const limits = { ...DEFAULTS, ...options };
  const { root } = options;
  return [
    tool({
      name: "read_file",
      description: "Reads a text file inside the working root. Paths are relative to the root.",
      input: readInput,
      idempotent: true,
      run: async ({ path }) => {
        const { real } = await resolveInside(root, path, "existing");
        return readText(real, path, limits.maxReadBytes);
      },
    }),
    tool({
      name: "list_files",
      description: "Lists a directory inside the working root: one entry a line, directories end with /.",
      input: listInput,
      idempotent: true,
      run: async ({ path }) => {
        const { real, shown } = await resolveInside(root, path, "existing");
        return listDirectory(real, shown, limits.maxEntries);
      },
    }),
    tool({
      name: "write_file",
      description:
        "Creates or replaces a text file inside the working root (parent directories are created).",
      input: writeInput,
      run: async ({ path, content }) => {
        const bytes = Buffer.byteLength(content, "utf8");
        if (bytes > limits.maxWriteBytes) {
          throw new ToolError(`Refused: ${bytes} bytes is over the write limit of ${limits.maxWriteBytes}`);
        }
        const { real, shown } = await resolveInside(root, path, "create");
        // O_NOFOLLOW: a symlink planted after the check is not followed out of the root.
        const file = await openRegular(real, WRITE_FLAGS, shown, "write");
        try {
          await file.writeFile(content, "utf8");
        } finally {
          await file.close();
        }
        return `Wrote ${bytes} bytes to ${shown}`;
      },
    }),
  ];
}

/**
 * Opens `real` without blocking and makes sure what was opened is a regular file: the check
 * before opening can be raced (a FIFO swapped in), the check on the open handle cannot.
 */
export async function openRegular(
  real: string,
  flags: number,
  shown: string,
  verb: "read" | "write",
): Promise<FileHandle> {
  const file = await open(real, flags, 0o644).catch((error: NodeJS.ErrnoException) => {
    throw new ToolError(`Cannot ${verb} ${shown}: ${error.code ?? "error"}`);
  });
  const info = await file.stat().catch(() => undefined);
  if (info?.isFile()) return file;
  await file.close();
  throw new ToolError(`Refused: ${shown} is not a regular file`);
}

async function readText(real: string, path: string, maxBytes: number): Promise<string> {
  const before = await stat(real);
  if (before.isDirectory()) throw new ToolError(`${path} is a directory; use list_files`);
  if (!before.isFile()) throw new ToolError(`Refused: ${path} is not a regular file`);
  const file = await openRegular(real, READ_FLAGS, path, "read");
  try {
    const info = await file.stat();
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes));
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    const head = buffer.subarray(0, bytesRead);
    if (head.subarray(0, 8192).includes(0))
      throw new ToolError(`${path} looks binary; only text files can be read`);
    const text = head.toString("utf8");
    if (info.size <= maxBytes) return text;
    return `${text}\n[truncated: showing ${maxBytes} of ${info.size} bytes]`;
  } finally {
    await file.close();
  }
}

async function listDirectory(real: string, shown: string, maxEntries: number): Promise<string> {
  const info = await stat(real);
  if (!info.isDirectory()) throw new ToolError(`${shown} is not a directory`);
  const entries = (await readdir(real, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const lines: string[] = [];
  for (const entry of entries.slice(0, maxEntries)) {
    if (entry.isDirectory()) lines.push(`${entry.name}/`);
    else if (entry.isSymbolicLink()) lines.push(`${entry.name} (symlink)`);
    else if (entry.isFile()) {
      const size = await stat(join(real, entry.name)).then(
        (s) => s.size,
        () => undefined,
      );
      lines.push(size === undefined ? entry.name : `${entry.name}  ${size} bytes`);
    } else lines.push(`${entry.name} (special)`);
  }
  if (entries.length > maxEntries) lines.push(`[... ${entries.length - maxEntries} more entries]`);
  return lines.length === 0 ? `${shown} is empty` : lines.join("\n");
}
