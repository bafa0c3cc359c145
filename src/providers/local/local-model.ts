import { once } from "../../core/once.js";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../../models/model.js";
import { defaultThreads } from "./engine.js";
import { LocalModelError } from "./errors.js";
import { type DownloadProgress, type LocalModelSource, parseLocalModelName } from "./name.js";
import type { LocalSession } from "./session.js";

// Opening a model and generating (node-llama-cpp's glue) are imported on the first call: a
// program that never runs a local model does not load them.
const SESSION = once(() => import("./session.js"));
const GENERATION = once(() => import("./generation.js"));

/** llama.cpp log levels; messages at this level and above go to stderr. */
export type LocalLogLevel = "disabled" | "fatal" | "error" | "warn" | "info" | "log" | "debug";

/** Settings of the embedded local model; every one has a default that works on a laptop CPU. */
export interface LocalModelOptions {
  /** Environment for `HF_TOKEN`, `HF_ENDPOINT`, `GLASSLOOP_MODELS_DIR`; defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** CPU threads for evaluation; defaults to every core (`os.availableParallelism()`). */
  threads?: number;
  /** Output token cap when a request sets no `maxOutputTokens`; defaults to 1024. */
  maxTokens?: number;
  /** Context window in tokens; defaults to the model's training context, at most 8192. */
  contextSize?: number;
  /** Sampling temperature when a request sets none; defaults to 0 (greedy, reproducible). */
  temperature?: number;
  /** Sampling seed, for reproducible runs at a temperature above 0. */
  seed?: number;
  /** `false` (default) runs on the CPU; `"auto"` lets node-llama-cpp use CUDA, Vulkan or Metal. */
  gpu?: false | "auto";
  /** node-llama-cpp chat wrapper (`"qwen"`, `"llama3.1"`, `"jinjaTemplate"`, ...); `"auto"` (default) reads the GGUF's template. */
  chatWrapper?: string;
  /** Where `local:hf:` files are cached; defaults to `GLASSLOOP_MODELS_DIR` or `~/.cache/glassloop/models`. */
  cacheDir?: string;
  /** Download progress of `local:hf:` models; defaults to a progress bar on stderr when it is a terminal. */
  onDownloadProgress?: (progress: DownloadProgress) => void;
  /** llama.cpp log level; defaults to `"error"`. */
  logLevel?: LocalLogLevel;
  /** Module to import instead of `node-llama-cpp` (a fork or a patched build). */
  engineModule?: string;
}

/** What a loaded local model is running with, and what its context holds now. */
export interface LocalModelInfo {
  /** The GGUF file on disk (for `hf:` models, the cached download). */
  file: string;
  /** The model's name from its GGUF metadata, when it has one. */
  name?: string;
  /** The node-llama-cpp chat wrapper that renders the chat. */
  chatWrapper: string;
  /** The special token that opens a tool call (detected as the start of a call), or null. */
  functionCallTrigger: string | null;
  threads: number;
  contextSize: number;
  /** The tokens in the KV cache now, as text: the last prompt and what the model generated after it. */
  contextText: string;
  contextTokens: number;
}

const DEFAULT_MAX_TOKENS = 1024;
const DEFAULT_MAX_CONTEXT = 8192;

/**
 * A model running in this process through node-llama-cpp (`local:<path.gguf>` or
 * `local:hf:<user>/<repo>/<file>.gguf`). It loads lazily on the first call, keeps the model and
 * its KV cache between calls (so an agent's growing transcript is only evaluated once), and runs
 * one generation at a time. Tool calls come back as `ToolCall`s for the loop to validate and run.
 */
export class LocalModel implements Model {
  readonly id: string;
  readonly price: ModelPrice = { inputPerMTok: 0, outputPerMTok: 0 };
  readonly source: LocalModelSource;
  readonly #options: LocalModelOptions;
  #session: Promise<LocalSession> | undefined;
  #queue: Promise<void> = Promise.resolve();
  #disposed = false;

  constructor(name: string, options: LocalModelOptions = {}) {
    this.source = parseLocalModelName(name);
    this.id = `local:${name.trim()}`;
    this.#options = options;
  }

  /** Loads the engine and the weights now (otherwise the first `generate` does); safe to call twice. */
  async load(signal?: AbortSignal): Promise<void> {
    await this.#load(signal);
  }

  /** The loaded model's file, settings and current context (loads it first if needed). */
  async info(): Promise<LocalModelInfo> {
    const session = await this.#load(undefined);
    const name = session.model.fileInfo.metadata.general?.name;
    return {
      file: session.file,
      ...(name ? { name } : {}),
      chatWrapper: session.wrapper.wrapperName,
      functionCallTrigger: session.trigger,
      threads: session.threads,
      contextSize: session.context.contextSize,
      contextText: session.model.detokenize(session.sequence.contextTokens, true),
      contextTokens: session.sequence.contextTokens.length,
    };
  }

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    return this.#exclusive(request.signal, async () => {
      const session = await this.#load(request.signal);
      request.signal.throwIfAborted();
      const o = this.#options;
      const { runGeneration } = await GENERATION();
      return runGeneration(session, request, observer, {
        maxTokens: request.maxOutputTokens ?? o.maxTokens ?? DEFAULT_MAX_TOKENS,
        temperature: request.temperature ?? o.temperature ?? 0,
        ...(o.seed !== undefined ? { seed: o.seed } : {}),
      });
    });
  }

  /** Frees the weights and the context (the shared engine stays for other local models). */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#queue;
    const session = await this.#session?.catch(() => undefined);
    this.#session = undefined;
    if (session) {
      await session.context.dispose();
      await session.model.dispose();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  #load(signal: AbortSignal | undefined): Promise<LocalSession> {
    if (this.#disposed) {
      return Promise.reject(new LocalModelError("local_generation_failed", `${this.id} was disposed`));
    }
    if (!this.#session) {
      const o = this.#options;
      const env = o.env ?? process.env;
      const opening = SESSION().then(({ openSession }) =>
        openSession(
          this.source,
          {
            env,
            threads: o.threads ?? defaultThreads(),
            contextSize: o.contextSize ?? { max: DEFAULT_MAX_CONTEXT },
            gpu: o.gpu ?? false,
            logLevel: o.logLevel ?? "error",
            chatWrapper: o.chatWrapper ?? "auto",
            cacheDir: o.cacheDir,
            onDownloadProgress: o.onDownloadProgress,
            engineModule: o.engineModule,
          },
          signal,
        ),
      );
      this.#session = opening;
      // A failed load (engine missing, download failed) is retried on the next call, not cached.
      opening.catch(() => {
        if (this.#session === opening) this.#session = undefined;
      });
    }
    return this.#session;
  }

  /** Runs `fn` after every earlier call finished: one sequence, one generation at a time. */
  async #exclusive<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    const previous = this.#queue;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#queue = previous.then(() => mine);
    try {
      await untilOrAbort(previous, signal);
      return await fn();
    } finally {
      release();
    }
  }
}

function untilOrAbort(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}
