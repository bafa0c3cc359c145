import { resolveSourceFile, terminalProgress } from "../providers/local/download.js";
import { importEngine } from "../providers/local/engine.js";
import { LocalModelError } from "../providers/local/errors.js";
import { type DownloadProgress, modelCacheDir } from "../providers/local/name.js";
import type { CliIO } from "./command.js";
import type { ModelChoice } from "./model-select.js";
import { terminalInterface } from "./terminal-text.js";

/** The model offered when none is configured: small, instruction-tuned, able to call tools. */
export const DEFAULT_LOCAL_MODEL = {
  uri: "hf:Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf",
  about: "Qwen2.5 1.5B Instruct, Q4_K_M quantization, about 1.1 GB",
} as const;

/**
 * When no model is configured: offers to download the default local model, on a terminal (a
 * question whose default is no) or with `--yes` (the answer given in advance, for scripts). Never
 * downloads without one of the two. Resolves to the downloaded model, or undefined when there is
 * nothing to offer here (no terminal and no `--yes`) or the user declined; the caller then says
 * every other way to get a model. A missing node-llama-cpp or a failed download is an error that
 * says what to do.
 */
export async function offerLocalModel(io: CliIO, yes: boolean): Promise<ModelChoice | undefined> {
  const interactive = io.stdin.isTTY === true && io.stderr.isTTY === true;
  if (!yes && !interactive) return undefined;
  const endpoint = io.env.HF_ENDPOINT || "https://huggingface.co/";
  const cacheDir = modelCacheDir(io.env);
  const nlc = await importEngine().catch((error: unknown) => {
    if (!yes && error instanceof LocalModelError) {
      io.stderr.write(`glassloop: no model is configured. ${error.message}, then run this again.\n`);
      return undefined;
    }
    throw error;
  });
  if (!nlc) return undefined;
  if (!yes) {
    io.stderr.write(
      `No model is configured. glassloop can download a small model that runs on this machine, offline:\n` +
        `  ${DEFAULT_LOCAL_MODEL.about}\n` +
        `  from ${endpoint} into ${cacheDir} (once; HF_ENDPOINT names a mirror)\n`,
    );
    if (!(await confirm(io, "Download it now? [y/N] "))) {
      io.stderr.write("Not downloaded.\n");
      return undefined;
    }
  }
  const progress = io.stderr.isTTY ? terminalProgress(io.stderr as NodeJS.WriteStream) : lineProgress(io);
  const file = await resolveSourceFile(
    nlc,
    { kind: "hf", uri: DEFAULT_LOCAL_MODEL.uri },
    { env: io.env, cacheDir, onProgress: progress },
  );
  return { model: `local:${file}`, source: `downloaded to ${cacheDir}; next time it is used by itself` };
}

/** Asks `question` on stderr and reads one line of stdin; only "y" or "yes" is a yes. */
async function confirm(io: CliIO, question: string): Promise<boolean> {
  const lines = terminalInterface({ input: io.stdin, output: io.stderr, terminal: false }, io.env);
  try {
    io.stderr.write(question);
    const answer = await new Promise<string>((resolve) => {
      lines.once("line", resolve);
      lines.once("close", () => resolve(""));
    });
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    lines.close();
  }
}

/** Progress without a terminal (a script with --yes): a line when it starts and when it is done. */
function lineProgress(io: CliIO): (p: DownloadProgress) => void {
  let started = false;
  let done = false;
  return ({ uri, downloadedBytes, totalBytes }) => {
    const mb = (totalBytes / 1_000_000).toFixed(1);
    if (!started) io.stderr.write(`Downloading ${uri} (${mb} MB)...\n`);
    started = true;
    if (!done && totalBytes > 0 && downloadedBytes >= totalBytes) {
      done = true;
      io.stderr.write(`Downloaded ${uri} (${mb} MB).\n`);
    }
  };
}
