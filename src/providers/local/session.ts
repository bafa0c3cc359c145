import type {
  ChatWrapper,
  Llama,
  LlamaContext,
  LlamaContextSequence,
  LlamaModel,
  ResolveChatWrapperWithModelOptions,
} from "node-llama-cpp";
import { ConfigError } from "../../core/errors.js";
import { functionCallTrigger } from "./chat-wrapper.js";
import { checkGgufFile, resolveSourceFile, terminalProgress } from "./download.js";
import { type EngineOptions, importEngine, type NodeLlamaCpp, startEngine } from "./engine.js";
import { describeError, LocalModelError } from "./errors.js";
import { type DownloadProgress, type LocalModelSource, modelCacheDir } from "./name.js";

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

/** What opening a session needs, with the defaults already applied. */
export interface SessionSettings {
  env: NodeJS.ProcessEnv;
  threads: number;
  contextSize: number | { max: number };
  gpu: EngineOptions["gpu"];
  logLevel: EngineOptions["logLevel"];
  chatWrapper: string;
  cacheDir: string | undefined;
  onDownloadProgress: ((progress: DownloadProgress) => void) | undefined;
  engineModule: string | undefined;
}

/** Finds (or downloads) the weights, starts the engine, loads the model and its context. */
export async function openSession(
  source: LocalModelSource,
  settings: SessionSettings,
  signal: AbortSignal | undefined,
): Promise<LocalSession> {
  // A wrong path is the likeliest mistake; say so even where the engine is not installed.
  if (source.kind === "file") await checkGgufFile(source.path);
  const nlc = await importEngine(settings.engineModule);
  const wrapperType = chatWrapperType(nlc, settings.chatWrapper);
  const file = await resolveSourceFile(nlc, source, {
    env: settings.env,
    cacheDir: settings.cacheDir ?? modelCacheDir(settings.env),
    onProgress: settings.onDownloadProgress ?? terminalProgress(),
    ...(signal ? { signal } : {}),
  });
  const llama = await startEngine(nlc, { gpu: settings.gpu, logLevel: settings.logLevel });
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
      contextSize: settings.contextSize,
      threads: settings.threads,
      sequences: 1,
    });
    const wrapper = nlc.resolveChatWrapper(model, { type: wrapperType });
    return {
      nlc,
      llama,
      model,
      context,
      sequence: context.getSequence(),
      wrapper,
      trigger: functionCallTrigger(nlc, model, wrapper),
      file,
      threads: settings.threads,
    };
  } catch (error) {
    await model.dispose();
    throw new LocalModelError(
      "local_model_load_failed",
      `Could not create a context for ${file}: ${describeError(error)}`,
      {
        cause: error,
      },
    );
  }
}

type WrapperType = NonNullable<ResolveChatWrapperWithModelOptions["type"]>;

/** The chat wrapper name checked against node-llama-cpp's list, so a typo is an error, not a silent "auto". */
function chatWrapperType(nlc: NodeLlamaCpp, name: string): WrapperType {
  const known: readonly string[] = nlc.resolvableChatWrapperTypeNames;
  if (!known.includes(name)) {
    throw new ConfigError(
      `Unknown chat wrapper "${name}" for the local model; node-llama-cpp knows: ${known.join(", ")}`,
    );
  }
  return name as WrapperType;
}
