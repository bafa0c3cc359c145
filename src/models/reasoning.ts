import type { Message, ReasoningPart } from "../core/vocabulary/messages.js";
import type { ModelObserver } from "./model.js";

/**
 * The reasoning parts of `message` that `provider` produced, in order. Reasoning is only ever sent
 * back to the wire format that made it: another provider cannot read a signature or an encrypted
 * payload, and Anthropic rejects thinking blocks it did not sign.
 */
export function ownReasoning(message: Message, provider: string): ReasoningPart[] {
  if (message.role !== "assistant" || message.reasoning === undefined) return [];
  return message.reasoning.filter((part) => part.provider === provider);
}

/**
 * Tells the observer how many reasoning parts of other providers `messages` carries (they are left
 * out of the request), so the run's events say so; silent when there are none.
 */
export function reportForeignReasoning(
  messages: readonly Message[],
  provider: string,
  observer: ModelObserver,
): void {
  let count = 0;
  const from = new Set<string>();
  for (const m of messages) {
    if (m.role !== "assistant" || m.reasoning === undefined) continue;
    for (const part of m.reasoning) {
      if (part.provider === provider) continue;
      count++;
      from.add(part.provider);
    }
  }
  if (count > 0) observer.onReasoningDropped?.({ count, from: [...from].sort() });
}
