import { registerProvider } from "../resolve.js";
import { AnthropicModel, type AnthropicOptions } from "./definition.js";

export {
  ANTHROPIC_DEFAULT_BASE_URL,
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ANTHROPIC_VERSION,
  AnthropicModel,
  type AnthropicOptions,
} from "./definition.js";

/** A Claude model, e.g. `anthropic("claude-sonnet-4-5")`; key from `ANTHROPIC_API_KEY` unless given. */
export function anthropic(model: string, options?: AnthropicOptions): AnthropicModel {
  return new AnthropicModel(model, options);
}

// `"anthropic:claude-…"` strings resolve with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL.
registerProvider(
  "anthropic",
  (model, env, options) => new AnthropicModel(model, { env, ...(options?.http && { http: options.http }) }),
);
