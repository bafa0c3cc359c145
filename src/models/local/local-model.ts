import type {
  ChatWrapper,
  Llama,
  LlamaContext,
  LlamaContextSequence,
  LlamaModel,
  ResolvableChatWrapperTypeName,
} from "node-llama-cpp";
import type { Model, ModelObserver, ModelPrice, ModelRequest, ModelResponse } from "../model.js";
import { functionCallTrigger } from "./chat-wrapper.js";
import {
  defaultThreads,
  type EngineOptions,
  importEngine,
  type NodeLlamaCpp,
  startEngine,
} from "./engine.js";
import { describeError, LocalModelError } from "./errors.js";
import { runGeneration } from "./generation.js";
import {
  checkGgufFile,
  type DownloadProgress,
  type LocalModelSource,
  modelCacheDir,
  parseLocalModelName,
  resolveSourceFile,
  terminalProgress,
} from "./source.js";

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
  /** node-llama-cpp chat wrapper; `"auto"` (default) picks it from the GGUF's chat template. */
  chatWrapper?: ResolvableChatWrapperTypeName;
  /** Where `local:hf:` files are cached; defaults to `GLASSLOOP_MODELS_DIR` or `~/.cache/glassloop/models`. */
  cacheDir?: string;
  /** Download progress of `local:hf:` models; defaults to a progress bar on stderr when it is a terminal. */
  onDownloadProgress?: (progress: DownloadProgress) => void;
  /** llama.cpp log level; defaults to `"error"`. */
  logLevel?: EngineOptions["logLevel"];
  /** Module to import instead of `node-llama-cpp` (a fork or a patched build). */
  engineModule?: string;
}

/** A loaded model, ready to generate; built once per `LocalModel` and reused across calls. */
export interface LocalSession {
  nlc: NodeLlamaCpp;
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  sequence: LlamaContextSequence;
  wrapper: ChatWrapper;
  /** The special token that opens a function call, when the chat wrapper has one. */
  trigger: string | null;
  file: string;
  threads: number;
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
  async load(signal?: AbortSignal): Promise<LocalSession> {
    if (this.#disposed) throw new LocalModelError("local_generation_failed", `${this.id} was disposed`);
    if (!this.#session) {
      this.#session = this.#open(signal);
      // A failed load (engine missing, download failed) is retried on the next call, not cached.
      this.#session.catch(() => (this.#session = undefined));
    }
    return this.#session;
  }

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    return this.#exclusive(request.signal, async () => {
      const session = await this.load(request.signal);
      request.signal.throwIfAborted();
      const o = this.#options;
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

  async #open(signal: AbortSignal | undefined): Promise<LocalSession> {
    const o = this.#options;
    const env = o.env ?? process.env;
    // A wrong path is the likeliest mistake; say so even where the engine is not installed.
    if (this.source.kind === "file") await checkGgufFile(this.source.path);
    const nlc = await importEngine(o.engineModule);
    const file = await resolveSourceFile(nlc, this.source, {
      env,
      cacheDir: o.cacheDir ?? modelCacheDir(env),
      onProgress: o.onDownloadProgress ?? terminalProgress(),
      ...(signal ? { signal } : {}),
    });
    const threads = o.threads ?? defaultThreads();
    const llama = await startEngine(nlc, {
      gpu: o.gpu ?? false,
      maxThreads: threads,
      logLevel: o.logLevel ?? "error",
    });
    let model: LlamaModel;
    try {
      model = await llama.loadModel({ modelPath: file });
    } catch (error) {
      throw new LocalModelError(
        "local_model_load_failed",
        `llama.cpp could not load ${file}: ${describeError(error)}`,
        {
          cause: error,
        },
      );
    }
    try {
      const context = await model.createContext({
        contextSize: o.contextSize ?? { max: DEFAULT_MAX_CONTEXT },
        threads,
        sequences: 1,
      });
      const wrapper = nlc.resolveChatWrapper(model, { type: o.chatWrapper ?? "auto" });
      return {
        nlc,
        llama,
        model,
        context,
        sequence: context.getSequence(),
        wrapper,
        trigger: functionCallTrigger(nlc, model, wrapper),
        file,
        threads,
      };
    } catch (error) {
      await model.dispose();
      throw new LocalModelError(
        "local_model_load_failed",
        `Could not create a context for ${file}: ${describeError(error)}`,
        { cause: error },
      );
    }
  }

  /** Runs `fn` after every earlier call finished: one sequence, one generation at a time. */
  async #exclusive<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    const previous = this.#queue;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
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
