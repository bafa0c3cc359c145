import { registerProvider } from "../resolve.js";
import { GeminiModel, type GeminiOptions } from "./definition.js";

export { GEMINI_DEFAULT_BASE_URL, GeminiModel, type GeminiOptions } from "./definition.js";

/** A Gemini model, e.g. `google("gemini-2.5-flash")`; key from `GEMINI_API_KEY` or `GOOGLE_API_KEY`. */
export function google(model: string, options?: GeminiOptions): GeminiModel {
  return new GeminiModel(model, options);
}

// `"google:gemini-2.5-flash"` strings resolve with GEMINI_API_KEY / GOOGLE_API_KEY.
registerProvider(
  "google",
  (model, env, options) => new GeminiModel(model, { env, ...(options?.http && { http: options.http }) }),
);
