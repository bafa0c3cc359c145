import type { AgentEvent, Message, RunError, RunResult } from "glassloop";
import { expect } from "vitest";

/** What one run produced: its events in order, and either its result or its error. */
export interface Captured<TOutput> {
  events: AgentEvent[];
  result?: RunResult<TOutput>;
  error?: RunError;
}

/** Runs `start` with an event listener and captures everything, success or failure. */
export async function capture<TOutput>(
  start: (onEvent: (event: AgentEvent) => void) => Promise<RunResult<TOutput>>,
): Promise<Captured<TOutput>> {
  const events: AgentEvent[] = [];
  try {
    const result = await start((event) => events.push(event));
    return { events, result };
  } catch (error) {
    return { events, error: error as RunError };
  }
}

/** Invariant 1: every assistant tool call has exactly one result, right after its message's turn. */
export function expectEveryCallAnswered(messages: readonly Message[]): void {
  const results = new Map<string, number>();
  for (const m of messages)
    if (m.role === "tool") results.set(m.toolCallId, (results.get(m.toolCallId) ?? 0) + 1);
  const calls = messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []));
  for (const call of calls) expect(results.get(call.id), `results for ${call.id}`).toBe(1);
  expect([...results.keys()].sort()).toEqual(calls.map((c) => c.id).sort());
  // Results follow their assistant message directly, before any other role.
  messages.forEach((m, i) => {
    if (m.role !== "assistant" || !m.toolCalls?.length) return;
    const following = messages.slice(i + 1, i + 1 + m.toolCalls.length);
    expect(following.map((f) => (f.role === "tool" ? f.toolCallId : f.role))).toEqual(
      m.toolCalls.map((c) => c.id),
    );
  });
}

/** The events of one type, narrowed. */
export function ofType<T extends AgentEvent["type"]>(
  events: readonly AgentEvent[],
  type: T,
): Extract<AgentEvent, { type: T }>[] {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

/** The tool message answering `toolCallId`. */
export function resultOf(messages: readonly Message[], toolCallId: string) {
  const found = messages.find((m) => m.role === "tool" && m.toolCallId === toolCallId);
  if (found?.role !== "tool") throw new Error(`no result for ${toolCallId}`);
  return found;
}
