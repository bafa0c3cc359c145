/**
 * Google's count endpoint (`models/{model}:countTokens`), on both of Google's APIs: it counts
 * what `generateContent` would be sent, but the two take the request differently.
 */
import type { ModelRequest } from "../../models/model.js";
import { type GeminiBodyOptions, toGeminiBody } from "./request.js";

/** Which Google API a Gemini model is reached through. */
export type GoogleApi = "gemini" | "vertex";

/**
 * The body of a `countTokens` call for `request`. The Gemini API takes the conversation alone as
 * `contents`, or the whole request (instructions and tools included) as `generateContentRequest`;
 * Vertex AI takes `contents`, `systemInstruction` and `tools` side by side.
 */
export function toCountBody(
  request: ModelRequest,
  settings: GeminiBodyOptions,
  modelName: string,
  api: GoogleApi,
): Record<string, unknown> {
  const { contents, systemInstruction, tools, toolConfig } = toGeminiBody(
    { ...request, stream: false },
    settings,
  );
  if (api === "vertex")
    return { contents, ...(systemInstruction && { systemInstruction }), ...(tools && { tools }) };
  if (!systemInstruction && !tools) return { contents };
  return {
    generateContentRequest: {
      model: `models/${modelName}`,
      contents,
      ...(systemInstruction && { systemInstruction }),
      ...(tools && { tools }),
      ...(toolConfig && { toolConfig }),
    },
  };
}

/** The count endpoint's URL from the model's `generateContent` URL (its query, such as `?key=`, kept). */
export function countUrl(generateUrl: string): string {
  const url = new URL(generateUrl);
  url.pathname = url.pathname.replace(/:generateContent$/, ":countTokens");
  return url.toString();
}
