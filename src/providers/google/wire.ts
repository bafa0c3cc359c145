/**
 * The Gemini API (`generateContent`, `streamGenerateContent?alt=sse`) as it appears on the wire,
 * only the parts glassloop reads or writes. Field names are Google's (camelCase JSON).
 */

/** One part of a content: text (maybe a thought), a function call, or a function's response. */
export interface GeminiPart {
  text?: string;
  /** True on a thought summary (with `includeThoughts`). */
  thought?: boolean;
  /** Opaque; must go back exactly on the same part of the next request (Gemini 3 rejects it missing). */
  thoughtSignature?: string;
  functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
  /** An image's or a document's bytes. */
  inlineData?: { mimeType: string; data: string };
  /** An image or a document by URL. */
  fileData?: { mimeType: string; fileUri: string };
}

/** A turn: `user` (text, function responses) or `model`. */
export interface GeminiContent {
  role: "user" | "model";
  parts: GeminiPart[];
}

/** A function as Gemini declares it; `parameters` is Gemini's OpenAPI-style schema subset. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: GeminiSchema;
}

/** Gemini's schema subset (upper-case types). */
export interface GeminiSchema {
  type?: "STRING" | "NUMBER" | "INTEGER" | "BOOLEAN" | "ARRAY" | "OBJECT" | "NULL";
  [key: string]: unknown;
}

/** The request body. */
export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: { functionDeclarations: GeminiFunctionDeclaration[] }[];
  toolConfig?: { functionCallingConfig: { mode: "AUTO" | "ANY" | "NONE"; allowedFunctionNames?: string[] } };
  generationConfig?: {
    maxOutputTokens?: number;
    temperature?: number;
    thinkingConfig?: { thinkingBudget?: number; includeThoughts?: boolean };
  };
}

/** Token counts; `thoughtsTokenCount` is apart from `candidatesTokenCount`. */
export interface GeminiUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  toolUsePromptTokenCount?: number;
}

/** A response body, and each chunk of a stream. */
export interface GeminiResponse {
  candidates?: {
    content?: { role?: string; parts?: GeminiPart[] };
    finishReason?: string;
    safetyRatings?: unknown[];
  }[];
  promptFeedback?: { blockReason?: string; safetyRatings?: unknown[] };
  usageMetadata?: GeminiUsage;
  modelVersion?: string;
  responseId?: string;
}
