import { GlassloopError } from "../../core/errors.js";

/** Why the embedded local model could not run; each code names one thing the user can fix. */
export type LocalModelErrorCode =
  /** `node-llama-cpp` is not installed (it is an optional dependency). */
  | "local_engine_missing"
  /** `node-llama-cpp` is installed but its native binary does not load on this machine. */
  | "local_engine_unavailable"
  /** The `.gguf` path does not exist, is not a file, or is not a GGUF file. */
  | "local_model_not_found"
  /** The file looked like GGUF but llama.cpp refused to load it (corrupt, unsupported architecture). */
  | "local_model_load_failed"
  /** `local:hf:...` could not be downloaded (no network, wrong name, no access). */
  | "local_download_failed"
  /** The transcript cannot be expressed as a chat (e.g. a tool result without its call). */
  | "local_bad_history"
  /** The engine failed while generating. */
  | "local_generation_failed";

/** An error of the embedded local model (`local:` models); `code` says which step failed. */
export class LocalModelError extends GlassloopError {
  declare readonly code: LocalModelErrorCode;
  constructor(code: LocalModelErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** The command that installs the engine, named in every "missing" message. */
export const LOCAL_ENGINE_INSTALL = "npm i -E node-llama-cpp@3.21.1";

/** The message of an unknown thrown value. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
