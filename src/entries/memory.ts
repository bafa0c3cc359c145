/**
 * `glassloop/memory`: what the model sees of a long conversation (window and summary strategies,
 * token counting), long-term recall (notes, embeddings, the memory tools), and the transcript's
 * schema and helpers for history read back from JSON.
 */

export { FILE_MEDIA_TYPES, MAX_FILE_BYTES } from "../core/files.js";
export { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES } from "../core/images.js";
export type { RecallOptions } from "../features/context-view.js";
export { type Embedder, OpenAIEmbeddings, type OpenAIEmbeddingsOptions } from "../memory/embeddings.js";
export {
  LongTermMemory,
  type LongTermMemoryOptions,
  type MemoryScope,
  type RecallMode,
} from "../memory/long-term.js";
export { MEMORY_TOOLS, memoryTools } from "../memory/memory-tools.js";
export { parseHistory } from "../memory/message-schema.js";
export type { MemoryContext, MemoryStrategy, SummaryRequest } from "../memory/strategy.js";
export { SUMMARY_PREFIX, SummaryMemory, type SummaryMemoryOptions } from "../memory/summary-memory.js";
export { encodingFor, estimateTokens, TokenCounter } from "../memory/tokens.js";
export { openToolCalls, toolCallsOf } from "../memory/transcript.js";
export { messageSchema } from "../memory/transcript-schema.js";
export { fitWindow, WindowMemory, type WindowMemoryOptions } from "../memory/window-memory.js";
export type { TokenEncoding } from "../models/tokenizer.js";
