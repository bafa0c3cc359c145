/** The embedded local model: GGUF weights run in-process by node-llama-cpp (an optional dependency). */
export { LOCAL_ENGINE_INSTALL, LocalModelError, type LocalModelErrorCode } from "./errors.js";
export {
  type LocalLogLevel,
  LocalModel,
  type LocalModelInfo,
  type LocalModelOptions,
} from "./local-model.js";
export {
  type DownloadProgress,
  type LocalModelSource,
  modelCacheDir,
  parseLocalModelName,
} from "./name.js";
export { probeLocalEngine } from "./probe.js";
