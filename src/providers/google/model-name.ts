/** The provider name Gemini's reasoning parts carry (Vertex AI's Gemini speaks the same wire). */
export const GEMINI_PROVIDER = "google";

/**
 * Whether `modelName` is a Gemini model that rejects unsigned function calls (Gemini 3 and later;
 * 1.x and 2.x accept them). Matches plain names and Vertex paths (`publishers/google/models/…`).
 */
export function validatesSignatures(modelName: string): boolean {
  const major = /(?:^|\/)gemini-(\d+)/.exec(modelName)?.[1];
  return major !== undefined && Number(major) >= 3;
}
