import os from "node:os";
import type { Llama, LlamaLogLevel } from "node-llama-cpp";
import { describeError, LOCAL_ENGINE_INSTALL, LocalModelError } from "./errors.js";

/** The node-llama-cpp module, loaded on first use so `import "glassloop"` never pays for it. */
export type NodeLlamaCpp = typeof import("node-llama-cpp");

/** How the native engine is started; one engine is shared by every local model with equal settings. */
export interface EngineOptions {
  /** `false` runs on the CPU only; `"auto"` lets node-llama-cpp pick CUDA/Vulkan/Metal when present. */
  gpu: false | "auto";
  /** llama.cpp log level; warnings and errors go to stderr. */
  logLevel: `${LlamaLogLevel}`;
}

/** The thread count used when none is given: every core (node-llama-cpp's default of 4 crawls on 2 cores). */
export function defaultThreads(): number {
  return os.availableParallelism();
}

const modules = new Map<string, Promise<NodeLlamaCpp>>();
const engines = new Map<string, Promise<Llama>>();

/** Imports node-llama-cpp (or `specifier`); a missing install becomes an error naming the install command. */
export function importEngine(specifier = "node-llama-cpp"): Promise<NodeLlamaCpp> {
  let loading = modules.get(specifier);
  if (!loading) {
    loading = (import(specifier) as Promise<NodeLlamaCpp>).catch((error: unknown) => {
      modules.delete(specifier);
      const code = (error as { code?: unknown }).code;
      if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
        throw new LocalModelError(
          "local_engine_missing",
          `The embedded local model needs node-llama-cpp, which is not installed. Install it with: ${LOCAL_ENGINE_INSTALL}`,
          { cause: error },
        );
      }
      throw new LocalModelError(
        "local_engine_unavailable",
        `node-llama-cpp is installed but failed to load: ${describeError(error)}`,
        { cause: error },
      );
    });
    modules.set(specifier, loading);
  }
  return loading;
}

/**
 * Starts llama.cpp with its prebuilt binary. `build: "never"` and `skipDownload` keep it from
 * ever fetching or compiling llama.cpp at run time (no network in CI, and a surprise compile is minutes).
 */
export function startEngine(nlc: NodeLlamaCpp, options: EngineOptions): Promise<Llama> {
  const key = JSON.stringify(options);
  let starting = engines.get(key);
  if (!starting) {
    starting = nlc
      .getLlama({
        gpu: options.gpu,
        build: "never",
        skipDownload: true,
        progressLogs: false,
        // No engine-wide cap: each context's `threads` is then exactly the number of threads it uses.
        maxThreads: 0,
        logLevel: options.logLevel as LlamaLogLevel,
      })
      .catch((error: unknown) => {
        engines.delete(key);
        throw new LocalModelError(
          "local_engine_unavailable",
          `node-llama-cpp's prebuilt llama.cpp binary could not be loaded on this machine (${process.platform}-${process.arch}): ${describeError(error)}. ` +
            `Reinstall it with: ${LOCAL_ENGINE_INSTALL}`,
          { cause: error },
        );
      });
    engines.set(key, starting);
  }
  return starting;
}
