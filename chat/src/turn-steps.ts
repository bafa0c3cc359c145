import type { ChatMessage, MessagePart } from "./ui-message.js";

/** One model call of an assistant turn: its number (from glassloop's step data part) and what it produced. */
export interface StepGroup {
  step: number | undefined;
  parts: MessagePart[];
}

/** An assistant turn as the page lays it out: its run, and its parts by step. */
export interface Turn {
  runId: string | undefined;
  steps: StepGroup[];
}

/** A step of a run, to fetch its exact request. */
export interface StepRef {
  runId: string;
  step: number;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : undefined;
}

/** Splits an assistant message at its step boundaries and reads glassloop's run and step ids from its data parts. */
export function splitTurn(message: ChatMessage): Turn {
  let runId = typeof message.metadata?.runId === "string" ? message.metadata.runId : undefined;
  const steps: StepGroup[] = [];
  let current: StepGroup = { step: undefined, parts: [] };
  for (const part of message.parts) {
    if (part.type === "step-start") {
      if (current.parts.length > 0 || current.step !== undefined) steps.push(current);
      current = { step: undefined, parts: [] };
      continue;
    }
    if (part.type === "data-glassloop-run" || part.type === "data-glassloop-step") {
      const data = record("data" in part ? part.data : undefined);
      if (typeof data?.runId === "string") runId ??= data.runId;
      if (part.type === "data-glassloop-step" && typeof data?.step === "number") current.step = data.step;
      continue;
    }
    current.parts.push(part);
  }
  if (current.parts.length > 0 || current.step !== undefined) steps.push(current);
  return { runId, steps };
}

/** The last step of a turn that made a request, for the diff of the next turn's first request. */
export function lastStepOf(turn: Turn): StepRef | undefined {
  const step = turn.steps.findLast((s) => s.step !== undefined)?.step;
  return turn.runId !== undefined && step !== undefined ? { runId: turn.runId, step } : undefined;
}
