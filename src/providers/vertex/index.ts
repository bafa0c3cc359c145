export { VertexGeminiModel, type VertexOptions, vertex } from "./definition.js";
