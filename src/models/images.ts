import { ConfigError } from "../core/errors.js";
import { imageProblem } from "../core/images.js";
import type { ImagePart } from "../core/vocabulary/messages.js";

/** `images` of a user message, each checked (type, size, url); a bad one is a ConfigError before sending. */
export function checkedImages(images: readonly ImagePart[]): readonly ImagePart[] {
  for (const image of images) {
    const problem = imageProblem(image);
    if (problem) throw new ConfigError(`A user message has ${problem}`);
  }
  return images;
}
