import os from "node:os";
import path from "node:path";
import { ConfigError } from "../../core/errors.js";
/** Where a local model's weights come from: a file on disk, or a Hugging Face file downloaded once. */
export type LocalModelSource = { kind: "file"; path: string } | { kind: "hf"; uri: string };

/** Download progress of a `local:hf:` model. */
export interface DownloadProgress {
  uri: string;
  downloadedBytes: number;
  totalBytes: number;
}

const HF_NAME = /^hf:[^/\s:]+\/[^/\s:]+(\/[^\s]+\.gguf|:[^\s/]+)$/i;

/**
 * Parses the part after `local:`: a path to a `.gguf` file, or `hf:<user>/<repo>/<file>.gguf`
 * (also `hf:<user>/<repo>:<quant>`, resolved by node-llama-cpp).
 */
export function parseLocalModelName(name: string): LocalModelSource {
  const trimmed = name.trim();
  if (trimmed === "") {
    throw new ConfigError(
      'The local model needs a GGUF file: "local:/path/to/model.gguf" or "local:hf:<user>/<repo>/<file>.gguf"',
    );
  }
  if (trimmed.startsWith("hf:")) {
    if (!HF_NAME.test(trimmed)) {
      throw new ConfigError(
        `"local:${trimmed}" is not a Hugging Face model file; write "local:hf:<user>/<repo>/<file>.gguf", ` +
          'e.g. "local:hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf"',
      );
    }
    return { kind: "hf", uri: trimmed };
  }
  const expanded = trimmed.startsWith("~/") ? path.join(os.homedir(), trimmed.slice(2)) : trimmed;
  return { kind: "file", path: path.resolve(expanded) };
}

/** The directory `local:hf:` downloads are cached in: `GLASSLOOP_MODELS_DIR`, else the user cache. */
export function modelCacheDir(env: NodeJS.ProcessEnv): string {
  if (env.GLASSLOOP_MODELS_DIR) return path.resolve(env.GLASSLOOP_MODELS_DIR);
  const cacheHome = env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return path.join(cacheHome, "glassloop", "models");
}
