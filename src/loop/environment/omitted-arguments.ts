import type { ToolCall } from "../../core/vocabulary/messages.js";

/**
 * The key of the JSON object that stands in for a call's arguments once the environment refused
 * them by size: memory, the store and every later request hold this marker, not the bytes.
 */
export const OMITTED_KEY = "glassloop_omitted";

/** `call` with its arguments replaced by a marker that carries `feedback` (the refusal the model reads). */
export function omitArguments(call: ToolCall, feedback: string): ToolCall {
  // Still a JSON object: providers that send arguments as an object (Anthropic) must accept it.
  return { id: call.id, name: call.name, arguments: JSON.stringify({ [OMITTED_KEY]: feedback }) };
}

/** The refusal a marker carries, or undefined for ordinary arguments. */
export function omittedFeedback(args: string): string | undefined {
  // A cheap prefix test first: this runs for every call.
  if (!args.startsWith(`{"${OMITTED_KEY}":`)) return undefined;
  try {
    const value = (JSON.parse(args) as Record<string, unknown>)[OMITTED_KEY];
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}
