import { registerProvider } from "../resolve.js";
import { VertexAnthropicModel } from "./anthropic.js";
import { VertexGeminiModel } from "./definition.js";

export {
  VERTEX_ANTHROPIC_VERSION,
  VertexAnthropicModel,
  type VertexAnthropicOptions,
  vertexAnthropic,
} from "./anthropic.js";
export { VertexGeminiModel, type VertexOptions, vertex } from "./definition.js";

// `vertex:<model>`: Claude models (Anthropic's publisher on Vertex) by name, Gemini otherwise.
registerProvider("vertex", (model, env, options) => {
  const http = options?.http && { http: options.http };
  return /^claude-/.test(model)
    ? new VertexAnthropicModel(model, { env, ...http })
    : new VertexGeminiModel(model, { env, ...http });
});
