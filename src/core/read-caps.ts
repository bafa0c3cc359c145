import { closeSync, constants, fstatSync, openSync, readFileSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { GlassloopError } from "./errors.js";

/** A kind of input with a cap in {@link READ_CAPS}. */
export type ReadKind =
  | "providerStream"
  | "providerBody"
  | "providerErrorBody"
  | "mcpMessage"
  | "a2aMessage"
  | "a2aStream"
  | "recording"
  | "evalResult"
  | "dataset"
  | "httpTool"
  | "fileTool";

/**
 * Every kind of bytes glassloop reads from elsewhere (a server, a peer, a file someone else may
 * have written), each with its cap. One table, so a reader added tomorrow picks a kind and gets a
 * cap, and a reviewer reads every cap in one place.
 */
export const READ_CAPS: Readonly<Record<ReadKind, number>> = {
  /** One streamed model answer (SSE): a 128k-token answer is about 30 MB. */
  providerStream: 64 * 1024 * 1024,
  /** One non-streamed model answer. */
  providerBody: 8 * 1024 * 1024,
  /** A provider's error body (it is shown, never parsed for content). */
  providerErrorBody: 64 * 1024,
  /** One JSON-RPC message from an MCP server over streamable HTTP (a JSON body, or one SSE event). */
  mcpMessage: 32 * 1024 * 1024,
  /** One JSON answer (or agent card) from an A2A peer. */
  a2aMessage: 1024 * 1024,
  /** One streamed answer from an A2A peer, all its events together. */
  a2aStream: 8 * 1024 * 1024,
  /** A trace file read back: `trace show/replay`, the viewer, `eval --replay`, `replay:` models. */
  recording: 256 * 1024 * 1024,
  /** An eval's `result.json`. */
  evalResult: 64 * 1024 * 1024,
  /** A dataset file (`.jsonl`, `.yaml`). */
  dataset: 64 * 1024 * 1024,
  /** What the built-in `http_get` tool keeps of a page (the rest is cut with a note). */
  httpTool: 100_000,
  /** What the built-in files tools show of one file (the rest is cut with a note). */
  fileTool: 100_000,
};

/** Bytes from elsewhere went over their cap: reading stopped there (code `input_too_large`). */
export class InputTooLargeError extends GlassloopError {
  readonly kind: ReadKind;
  readonly limitBytes: number;
  /** Where the bytes came from (a path or a server's name). */
  readonly source: string;
  constructor(kind: ReadKind, limitBytes: number, source: string) {
    super("input_too_large", `${source}: ${tooLargeReason(kind, limitBytes)}`);
    this.kind = kind;
    this.limitBytes = limitBytes;
    this.source = source;
  }
}

/** "larger than N bytes (the K cap); reading stopped there", for messages that name the source themselves. */
export function tooLargeReason(kind: ReadKind, limitBytes: number): string {
  return `larger than ${limitBytes} bytes (the ${kind} cap); reading stopped there`;
}

/** A path from someone else's file pointed outside the folder it must stay in (code `path_outside`). */
export class PathOutsideError extends GlassloopError {
  readonly root: string;
  readonly path: string;
  constructor(root: string, path: string, what: string) {
    super("path_outside", `${what} ${JSON.stringify(path)} points outside ${root}; refused`);
    this.root = root;
    this.path = path;
  }
}

/** A file that is not a regular file (a FIFO would block a read forever; a symlink where refused). */
export class NotAFileError extends GlassloopError {
  /** Why, in a few words ("it is a symlink", "not a regular file"). */
  readonly why: string;
  constructor(path: string, why: string) {
    super("not_a_file", `Refused ${path}: ${why}`);
    this.why = why;
  }
}

/**
 * The text of a file someone else may have written, under the cap of its kind: opened without
 * blocking (a FIFO with the name cannot hang the process), checked to be a regular file on the
 * open descriptor, and refused when larger than the cap before a byte is read. With `noFollow`, a
 * symlink is refused too. Other failures (ENOENT, EACCES) are thrown as Node's errors, for the
 * caller to name in its own words.
 */
export function readFileCapped(
  path: string,
  kind: ReadKind,
  options: { noFollow?: boolean; limitBytes?: number } = {},
): string {
  const limit = options.limitBytes ?? READ_CAPS[kind];
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_RDONLY | constants.O_NONBLOCK | (options.noFollow ? constants.O_NOFOLLOW : 0),
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ELOOP") throw new NotAFileError(path, "it is a symlink");
    throw error;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new NotAFileError(path, "not a regular file");
    if (info.size > limit) throw new InputTooLargeError(kind, limit, path);
    const text = readFileSync(fd, "utf8");
    // A file that grew between the check and the read is held to the cap all the same.
    if (Buffer.byteLength(text) > limit) throw new InputTooLargeError(kind, limit, path);
    return text;
  } finally {
    closeSync(fd);
  }
}

/**
 * `path` (relative to `root`, as someone else's file wrote it) resolved inside `root`, or a
 * PathOutsideError: `../`, an absolute path, and a symlink whose target leaves `root` are refused.
 */
export function containedPath(root: string, path: string, what = "a path"): string {
  const base = resolve(root);
  const full = resolve(base, path);
  if (!isInside(base, full)) throw new PathOutsideError(base, path, what);
  // A link inside the folder may point anywhere: where it really leads must be inside too (for a
  // path that does not exist yet, where its nearest existing parent leads).
  const real = realpathOfNearest(full);
  if (real !== undefined && !isInside(realpathOfNearest(base) ?? base, real))
    throw new PathOutsideError(base, path, what);
  return full;
}

/** The real path of `full`, or of its nearest existing parent; undefined when none exists. */
function realpathOfNearest(full: string): string | undefined {
  for (let path = full; ; path = dirname(path)) {
    try {
      return realpathSync(path);
    } catch {
      if (dirname(path) === path) return undefined;
    }
  }
}

/** Whether `full` is `root` itself or below it (both absolute). */
export function isInside(root: string, full: string): boolean {
  const rel = relative(root, full);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * A body's bytes, read chunk by chunk and given up on past `limitBytes` (a declared length over it
 * is refused before a byte is read; the rest of the body is never read, the connection is
 * dropped). `tooLarge` makes the caller's own typed error.
 */
export async function readBodyCapped(
  body: ReadableStream<Uint8Array> | null,
  limitBytes: number,
  tooLarge: () => Error,
  declaredLength?: string | null,
): Promise<Buffer> {
  const declared = Number(declaredLength ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limitBytes) {
    await body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!body) return Buffer.alloc(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limitBytes) throw tooLarge();
      chunks.push(value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks, total);
}

/**
 * A body passed through as it arrives, each message held to `limitBytes`: the whole body, or with
 * `perEvent`, each server-sent event (counted from one blank line to the next), so a long-lived
 * stream of small events goes on while one huge event is cut. Past the cap the source is
 * cancelled (the connection dropped) and the stream ends with `onOverflow()`'s bytes when it gives
 * some (say, an error message the reader understands), else errors with `tooLarge()`.
 */
export function capStream(
  body: ReadableStream<Uint8Array>,
  limitBytes: number,
  options: { perEvent: boolean; tooLarge: () => Error; onOverflow?: () => Uint8Array | undefined },
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let size = 0;
  // The last bytes seen, to find an event boundary ("\n\n" or "\r\n\r\n") split across chunks.
  let tail = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      let start = 0;
      let over = false;
      if (options.perEvent) {
        for (let i = 0; i < value.length; i++) {
          tail = ((tail << 8) | (value[i] as number)) >>> 0;
          if ((tail & 0xffff) === 0x0a0a || tail === 0x0d0a0d0a) {
            over ||= size + (i + 1 - start) > limitBytes;
            size = 0;
            start = i + 1;
          }
        }
      }
      size += value.length - start;
      if (over || size > limitBytes) {
        reader.cancel().catch(() => {});
        const ending = options.onOverflow?.();
        if (ending === undefined) {
          controller.error(options.tooLarge());
          return;
        }
        controller.enqueue(ending);
        controller.close();
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
