import type { Message } from "../core/vocabulary/messages.js";

/**
 * Indices of messages that must be kept or dropped together: an assistant message with tool
 * calls and the results of those calls (wherever they sit), or a single message.
 */
export interface Unit {
  /** Ascending message indices; the first is the unit's position. */
  indices: number[];
}

/**
 * Splits a transcript (without its system message) into units, oldest first, so trimming can
 * never separate a tool call from its result. A result whose call is not in the transcript
 * (an orphan in the input) becomes a unit of its own; `sanitize` removes it from any view.
 */
export function groupUnits(messages: readonly Message[]): Unit[] {
  const owner = new Map<string, Unit>();
  const units: Unit[] = [];
  messages.forEach((message, i) => {
    if (message.role === "tool") {
      const unit = owner.get(message.toolCallId);
      if (unit) {
        unit.indices.push(i);
        return;
      }
    }
    const unit: Unit = { indices: [i] };
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) owner.set(call.id, unit);
    units.push(unit);
  });
  return units;
}

/** Index of the newest user message, or -1. */
export function latestUserIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]?.role === "user") return i;
  return -1;
}

/**
 * The messages at `keep` in their original order, minus anything that would break pairing: a
 * tool result without its call, or a call whose results are not all kept.
 */
export function sanitize(messages: readonly Message[], keep: Iterable<number>): Message[] {
  const kept = [...new Set(keep)].sort((a, b) => a - b).map((i) => messages[i] as Message);
  const results = new Set<string>();
  for (const m of kept) if (m.role === "tool") results.add(m.toolCallId);
  const complete = new Set<string>();
  const out = kept.filter((m) => {
    if (m.role !== "assistant" || !m.toolCalls?.length) return true;
    const whole = m.toolCalls.every((c) => results.has(c.id));
    if (whole) for (const c of m.toolCalls) complete.add(c.id);
    return whole;
  });
  return out.filter((m) => m.role !== "tool" || complete.has(m.toolCallId));
}
