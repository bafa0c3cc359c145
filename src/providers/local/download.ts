import { open, stat } from "node:fs/promises";
import { heldTimeout } from "../../core/held-timeout.js";
import type { NodeLlamaCpp } from "./engine.js";
import { describeError, LocalModelError } from "./errors.js";
import type { DownloadProgress, LocalModelSource } from "./name.js";

/** Checks that `file` exists and starts with the GGUF magic, so a wrong path fails clearly before llama.cpp. */
export async function checkGgufFile(file: string): Promise<void> {
  let size: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new Error("not a regular file");
    size = info.size;
  } catch (error) {
    throw new LocalModelError(
      "local_model_not_found",
      `No GGUF model file at ${file} (${describeError(error)}). Pass an existing .gguf path, e.g. local:./models/model.gguf`,
      { cause: error },
    );
  }
  const magic = Buffer.alloc(4);
  const handle = await open(file, "r");
  try {
    await handle.read(magic, 0, 4, 0);
  } finally {
    await handle.close();
  }
  if (size < 4 || magic.toString("latin1") !== "GGUF") {
    throw new LocalModelError(
      "local_model_not_found",
      `${file} is not a GGUF model file (it does not start with "GGUF"). llama.cpp models are .gguf files.`,
    );
  }
}

/** Options for turning a source into a file on disk. */
export interface ResolveSourceOptions {
  env: NodeJS.ProcessEnv;
  cacheDir: string;
  onProgress: (progress: DownloadProgress) => void;
  signal?: AbortSignal;
  /** Give up when a download makes no progress for this long (the downloader itself retries for minutes). */
  stallTimeoutMs?: number;
  /** How long the endpoint may take to answer the reachability probe before the download fails (10 s). */
  reachabilityTimeoutMs?: number;
}

const REACHABILITY_TIMEOUT_MS = 10_000;
const DEFAULT_STALL_TIMEOUT_MS = 60_000;

/** The local file of `source`, downloading a `hf:` file into the cache the first time. */
export async function resolveSourceFile(
  nlc: NodeLlamaCpp,
  source: LocalModelSource,
  options: ResolveSourceOptions,
): Promise<string> {
  if (source.kind === "file") {
    await checkGgufFile(source.path);
    return source.path;
  }
  const { env, cacheDir } = options;
  const endpoint = hfEndpoint(env);
  const common = {
    directory: cacheDir,
    cli: false,
    ...(env.HF_TOKEN ? { tokens: { huggingFace: env.HF_TOKEN } } : {}),
    endpoints: { huggingFace: endpoint },
  };
  const cached = await nlc
    .resolveModelFile(source.uri, { ...common, download: false })
    .catch(() => undefined);
  if (cached !== undefined) {
    await checkGgufFile(cached);
    return cached;
  }
  const fail = (detail: string, cause?: unknown): never => {
    throw new LocalModelError(
      "local_download_failed",
      `Could not download ${source.uri} into ${cacheDir}: ${detail}. ` +
        "Without network access, download the .gguf file elsewhere and run it with local:/path/to/file.gguf",
      cause === undefined ? undefined : { cause },
    );
  };
  // node-llama-cpp's downloader retries an unreachable host for minutes; find out in seconds instead.
  // Held: an `AbortSignal.timeout` inside `any` can be collected before it fires (held-timeout.ts).
  const probe = heldTimeout(options.reachabilityTimeoutMs ?? REACHABILITY_TIMEOUT_MS, endpoint);
  try {
    await fetch(endpoint, {
      method: "HEAD",
      signal: options.signal ? AbortSignal.any([probe.signal, options.signal]) : probe.signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    fail(`${endpoint} is unreachable (${describeError(causeOf(error))})`, error);
  } finally {
    probe.clear();
  }
  const stall = new AbortController();
  const stallMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  let timer = setTimeout(() => stall.abort(), stallMs);
  const signal = options.signal ? AbortSignal.any([stall.signal, options.signal]) : stall.signal;
  let file: string | undefined;
  try {
    file = await nlc.resolveModelFile(source.uri, {
      ...common,
      download: "auto",
      signal,
      onProgress: ({ downloadedSize, totalSize }) => {
        clearTimeout(timer);
        timer = setTimeout(() => stall.abort(), stallMs);
        options.onProgress({ uri: source.uri, downloadedBytes: downloadedSize, totalBytes: totalSize });
      },
    });
  } catch (error) {
    if (!stall.signal.aborted) {
      if (options.signal?.aborted) throw options.signal.reason;
      fail(describeError(error), error);
    }
  } finally {
    clearTimeout(timer);
  }
  if (options.signal?.aborted) throw options.signal.reason;
  if (stall.signal.aborted || file === undefined) fail(`no data arrived for ${stallMs / 1000} s`);
  await checkGgufFile(file!);
  return file!;
}

/** The Hugging Face endpoint: `HF_ENDPOINT` (a mirror, or a test server) or huggingface.co. */
function hfEndpoint(env: NodeJS.ProcessEnv): string {
  const endpoint = env.HF_ENDPOINT || "https://huggingface.co/";
  return endpoint.endsWith("/") ? endpoint : `${endpoint}/`;
}

/** fetch wraps network failures as "fetch failed"; the cause says what happened (ECONNREFUSED, ENOTFOUND). */
function causeOf(error: unknown): unknown {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? cause : error;
}

/** A one-line progress bar on stderr, redrawn in place; only used on a terminal. */
export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): (p: DownloadProgress) => void {
  let lastDrawn = -1;
  return ({ uri, downloadedBytes, totalBytes }) => {
    if (!stream.isTTY) return;
    const ratio = totalBytes > 0 ? Math.min(1, downloadedBytes / totalBytes) : 0;
    const percent = Math.floor(ratio * 100);
    if (percent === lastDrawn) return;
    lastDrawn = percent;
    const width = 24;
    const filled = Math.round(ratio * width);
    const mb = (n: number) => (n / 1_000_000).toFixed(1);
    stream.write(
      `\rDownloading ${uri} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${percent}% ${mb(downloadedBytes)}/${mb(totalBytes)} MB`,
    );
    if (ratio >= 1) stream.write("\n");
  };
}
