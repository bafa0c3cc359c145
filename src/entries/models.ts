/**
 * `glassloop/models`: the providers behind the `Model` interface (OpenAI Chat, the Responses API,
 * Anthropic, Gemini, the embedded local model, prompted tool calling), their HTTP settings and
 * defaults, the OpenAI-compatible presets, prices, and every provider error class. Model strings
 * (`"openai:gpt-4o-mini"`) need none of this: they resolve from the root.
 */

export type { FallbackReason } from "../core/vocabulary/events.js";
export { UnsupportedContentError } from "../models/attachments.js";
export { CloudCredentialsError, type TokenProvider } from "../models/cloud-credentials.js";
export {
  ContextWindowError,
  checkContextWindow,
  countTokens,
  estimateRequestTokens,
  type TokenCount,
} from "../models/context-window.js";
export {
  AuthenticationError,
  CallDeadlineError,
  ContextOverflowError,
  ModelTimeoutError,
  NetworkError,
  type OversizedPart,
  ProviderError,
  type ProviderErrorInit,
  ProviderProtocolError,
  RateLimitError,
  RequestTimeoutError,
  ResponseTooLargeError,
  StreamIdleTimeoutError,
  StreamIncompleteError,
} from "../models/errors.js";
export {
  type BreakerOptions,
  type BreakerState,
  CircuitBreakers,
  DEFAULT_RETRY_AFTER_THRESHOLD_MS,
  defaultReason,
  type FallbackAttempt,
  FallbackExhaustedError,
  FallbackModel,
  type FallbackOptions,
  sharedBreakers,
} from "../models/fallback/index.js";
export {
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_ERROR_BODY_BYTES,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_RETRY,
  type HttpOptions,
  type RetryPolicy,
} from "../models/http/index.js";
export {
  costOf,
  type FallbackInfo,
  type RateLimitWaitInfo,
  type RetryInfo,
} from "../models/model.js";
export { MODEL_TABLE, MODEL_TABLE_DATE, type ModelInfo } from "../models/model-table.js";
export { contextWindowOf, modelInfo, priceOf, setModelInfo, setModelPrice } from "../models/prices.js";
export {
  globalRateLimits,
  type Limiter,
  type Permit,
  RateLimitedModel,
  type RateLimitedOptions,
  RateLimiter,
  type RateLimits,
  type RateLimitWait,
  rateLimited,
  rateLimiter,
  setRateLimits,
} from "../models/rate-limit/index.js";
export {
  ANTHROPIC_TOOL_CALL_IDS,
  normalizeToolCallIds,
  type ToolCallIdRules,
} from "../models/tool-call-ids.js";
export { ANTHROPIC_CACHE_DEFAULT, type AnthropicCachePolicy } from "../providers/anthropic/cache.js";
export {
  ANTHROPIC_DEFAULT_BASE_URL,
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_VERSION,
  AnthropicModel,
  type AnthropicOptions,
  anthropic,
} from "../providers/anthropic/index.js";
export { AzureOpenAIModel, type AzureOptions, azure } from "../providers/azure/index.js";
export {
  type AwsCredentialSource,
  type AwsCredentials,
  BedrockModel,
  type BedrockOptions,
  bedrock,
} from "../providers/bedrock/index.js";
export { GeminiBlockedError } from "../providers/google/errors.js";
export {
  GEMINI_DEFAULT_BASE_URL,
  GeminiModel,
  type GeminiOptions,
  google,
} from "../providers/google/index.js";
export { GeminiSchemaError, toGeminiSchema } from "../providers/google/schema.js";
export {
  type DownloadProgress,
  LOCAL_ENGINE_INSTALL,
  type LocalLogLevel,
  LocalModel,
  LocalModelError,
  type LocalModelErrorCode,
  type LocalModelInfo,
  type LocalModelOptions,
  type LocalModelSource,
  modelCacheDir,
  probeLocalEngine,
} from "../providers/local/index.js";
export { OpenAIChatModel, type OpenAIChatOptions } from "../providers/openai/definition.js";
export {
  COMPATIBLE_QUIRKS,
  OPENAI_QUIRKS,
  OPENAI_TOOL_CALL_IDS,
  type OpenAIQuirks,
} from "../providers/openai/quirks.js";
export {
  OPENAI_RESPONSES_DEFAULT_BASE_URL,
  OpenAIResponsesModel,
  type OpenAIResponsesOptions,
  openaiResponses,
} from "../providers/openai-responses/index.js";
export { OPENAI_PRESETS, type OpenAIPreset, type OpenAIPresetName } from "../providers/preset-table.js";
export {
  deepseek,
  groq,
  ollama,
  openai,
  openrouter,
  type PresetOptions,
  presetModel,
} from "../providers/presets.js";
export { type Extraction, extractToolCalls } from "../providers/prompted/extract.js";
export { INVALID_PROMPTED_CALL } from "../providers/prompted/render.js";
export { prompted } from "../providers/prompted.js";
export {
  type FallbackChainOptions,
  fallback,
  type ModelChoice,
  type ProviderFactory,
  type ProviderOptions,
  registerProvider,
} from "../providers/resolve.js";
export {
  VERTEX_ANTHROPIC_VERSION,
  VertexAnthropicModel,
  type VertexAnthropicOptions,
  VertexGeminiModel,
  type VertexOptions,
  vertex,
  vertexAnthropic,
} from "../providers/vertex/index.js";
