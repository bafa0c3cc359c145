import { ConfigError } from "../errors.js";
import { imageProblem } from "../memory/images.js";
import type { ImagePart, ToolMessage } from "../vocabulary/messages.js";

/** `images` of a user message, each checked (type, size, url); a bad one is a ConfigError before sending. */
export function checkedImages(images: readonly ImagePart[]): readonly ImagePart[] {
  for (const image of images) {
    const problem = imageProblem(image);
    if (problem) throw new ConfigError(`A user message has ${problem}`);
  }
  return images;
}

/**
 * The words before a tool's images where a provider's tool results cannot hold images and they go
 * in the user message after the results (OpenAI Chat Completions and Responses, Gemini).
 */
export function toolImagesCaption(message: ToolMessage): string {
  return `Images returned by tool ${message.toolName} (call ${message.toolCallId}):`;
}
