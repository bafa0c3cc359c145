import { registerProvider } from "../resolve.js";
import { OpenAIResponsesModel, type OpenAIResponsesOptions } from "./definition.js";

export {
  OPENAI_RESPONSES_DEFAULT_BASE_URL,
  OpenAIResponsesModel,
  type OpenAIResponsesOptions,
} from "./definition.js";

/** A model behind OpenAI's Responses API, e.g. `openaiResponses("gpt-5", { reasoning: { effort: "low" } })`. */
export function openaiResponses(model: string, options?: OpenAIResponsesOptions): OpenAIResponsesModel {
  return new OpenAIResponsesModel(model, options);
}

// `"openai-responses:gpt-5"` strings resolve with OPENAI_API_KEY and OPENAI_BASE_URL.
registerProvider(
  "openai-responses",
  (model, env, options) =>
    new OpenAIResponsesModel(model, { env, ...(options?.http && { http: options.http }) }),
);
