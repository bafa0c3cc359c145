import type { AgentEvent, Message } from "glassloop";

/**
 * Invariant 1, as a provider checks it: every assistant message's tool calls are answered by the
 * tool messages that directly follow it, exactly one result per call, and no tool message stands
 * anywhere else. Returns what is wrong (empty when the transcript is sound), so property tests can
 * report every problem of a counterexample at once.
 */
export function pairingViolations(messages: readonly Message[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Message;
    if (m.role === "tool") {
      problems.push(`message ${i}: tool result ${m.toolCallId} does not follow a tool call`);
      continue;
    }
    if (m.role !== "assistant" || !m.toolCalls?.length) continue;
    const ids = m.toolCalls.map((c) => c.id);
    if (new Set(ids).size !== ids.length) problems.push(`message ${i}: repeated call ids ${ids.join(",")}`);
    let j = i + 1;
    const answered = new Map<string, number>();
    for (; j < messages.length && messages[j]?.role === "tool"; j++) {
      const id = (messages[j] as Extract<Message, { role: "tool" }>).toolCallId;
      answered.set(id, (answered.get(id) ?? 0) + 1);
    }
    for (const id of ids) {
      const n = answered.get(id) ?? 0;
      if (n !== 1) problems.push(`message ${i}: call ${id} has ${n} results`);
    }
    for (const id of answered.keys()) {
      if (!ids.includes(id)) problems.push(`message ${i}: result ${id} answers no call of this turn`);
    }
    i = j - 1;
  }
  return problems;
}

/** What a run ended with, for checking its events. */
export type Ending = { ok: true } | { ok: false; code: string };

const STEP_EVENTS = new Set<AgentEvent["type"]>([
  "model_request",
  "model_retry",
  "model_response",
  "text_delta",
  "nested",
]);

/**
 * The event stream of one run is well ordered: run_start first, run_end last and only once, steps
 * numbered 1, 2, 3… each closed by its step_end, every tool_call answered by one tool_result of the
 * same step, and an `error` event right before run_end exactly when the run failed.
 */
export function eventViolations(events: readonly AgentEvent[], ending: Ending): string[] {
  const problems: string[] = [];
  const at = (i: number, what: string) => problems.push(`event ${i} (${events[i]?.type}): ${what}`);
  if (events[0]?.type !== "run_start") problems.push("the first event is not run_start");
  const ends = events.filter((e) => e.type === "run_end").length;
  if (ends !== 1) problems.push(`${ends} run_end events`);
  const last = events.at(-1);
  if (last?.type !== "run_end") problems.push("the last event is not run_end");
  else if ((last.status === "ok") !== ending.ok)
    problems.push(`run_end status ${last.status} for ${JSON.stringify(ending)}`);
  const errors = events.filter((e) => e.type === "error");
  if (ending.ok && errors.length > 0) problems.push("an error event in a successful run");
  if (!ending.ok) {
    const before = events.at(-2);
    if (errors.length !== 1 || before?.type !== "error")
      problems.push("a failed run lacks one error event before run_end");
    else if (before.code !== ending.code)
      problems.push(`error event code ${before.code}, thrown ${ending.code}`);
  }

  let step = 0;
  let open = false;
  let pending = new Map<string, number>();
  const closeCalls = (i: number) => {
    for (const [id, n] of pending)
      if (n !== 0) at(i, `tool_call ${id} of step ${step} has ${n} results missing`);
    pending = new Map();
  };
  for (let i = 1; i < events.length; i++) {
    const e = events[i] as AgentEvent;
    if (e.type === "run_start") at(i, "a second run_start");
    if (e.type === "step_start") {
      if (open) at(i, `step ${e.step} starts inside step ${step}`);
      closeCalls(i);
      if (e.step !== step + 1) at(i, `step ${e.step} follows step ${step}`);
      step = e.step;
      open = true;
    } else if (e.type === "step_end") {
      if (!open || e.step !== step) at(i, `step_end ${e.step} without its step_start`);
      closeCalls(i);
      open = false;
    } else if (STEP_EVENTS.has(e.type)) {
      if (!open || ("step" in e && e.step !== step)) at(i, "outside its step");
    } else if (e.type === "tool_call" || e.type === "tool_result") {
      // Calls closed before the first step (an interrupted history) carry step 0.
      const expected = open ? step : e.step === 0 ? 0 : step;
      if (e.step !== expected) at(i, `step ${e.step} while step ${step} is ${open ? "open" : "closed"}`);
      const n = pending.get(e.toolCallId) ?? 0;
      if (e.type === "tool_call") pending.set(e.toolCallId, n + 1);
      else if (n <= 0) at(i, `tool_result ${e.toolCallId} without a pending tool_call`);
      else pending.set(e.toolCallId, n - 1);
    } else if (e.type === "error" || e.type === "run_end") {
      if (open) at(i, `inside step ${step}`);
    }
  }
  closeCalls(events.length);
  return problems;
}
