import { ConfigError } from "../../core/errors.js";
import { answersFor, RecordedAnswers } from "../../core/questions.js";
import type { AssistantMessage, Message } from "../../core/vocabulary/messages.js";
import type { ToolOutcome } from "../../core/vocabulary/outcome.js";
import type { PersonAnswer } from "../../core/vocabulary/questions.js";
import type { RunState, StartPosition } from "../../loop/hooks.js";
import type { PendingCall, StoredRun } from "../../store/store.js";

/** The result a non-idempotent call gets when the process died while it ran. */
export function interruptedContent(toolName: string): string {
  return (
    `Interrupted: the process running this call stopped before ${toolName} finished, so its result is unknown. ` +
    `${toolName} is not marked idempotent, so it was not run again; it may or may not have taken effect. Check before retrying.`
  );
}

/** Where a stored run resumes, and the interrupted turn's calls the checkpoints must pick up again. */
export interface Resumption {
  position: StartPosition;
  /** The interrupted turn with tool calls and its calls as the store holds them; absent otherwise. */
  recover?: { turn: AssistantMessage; calls: PendingCall[] };
}

/**
 * Where a stored run resumes: after its last step, or, when the crash interrupted a turn, at that
 * step with the turn to finish (the loop decides its answer and runs its calls by the live
 * step's own code). Calls that finished keep their stored result; a call that was running is
 * re-run only if its tool is idempotent, otherwise it gets an explicit "interrupted" result;
 * calls that never started run now.
 */
export function startPosition(stored: StoredRun, state: RunState<unknown>): Resumption {
  const lastStep = stored.usage.steps.at(-1)?.step ?? 0;
  const turn = lastAssistant(state.messages);
  const pending = stored.progress.pending;
  // The crash came after an answer was checkpointed but before the run acted on it (or, for a
  // text answer, before it was marked done).
  const unanswered =
    turn !== undefined && (turn.toolCalls?.length ? pending.length > 0 : state.messages.at(-1) === turn);
  if (!turn || !unanswered) return { position: { step: lastStep + 1 } };
  const ids = new Set(pending.map((p) => p.call.id));
  const known = new Map<string, ToolOutcome>();
  for (const p of pending) {
    if (p.state === "done" && p.outcome) {
      known.set(p.call.id, { ...p.outcome, durationMs: 0 });
    } else if (p.state === "started" && state.environment.registry.get(p.call.name)?.idempotent !== true) {
      known.set(p.call.id, {
        status: "interrupted",
        content: interruptedContent(p.call.name),
        durationMs: 0,
      });
    }
  }
  return {
    position: {
      step: lastStep,
      pendingTurn: {
        assistant: turn,
        finishReason: stored.progress.finishReason,
        calls: (turn.toolCalls ?? []).filter((c) => ids.has(c.id)),
        known,
      },
    },
    ...(turn.toolCalls?.length ? { recover: { turn, calls: pending } } : {}),
  };
}

/**
 * Refuses to resume `stored` with an agent that offers tools the run was not started with (a
 * resume must never widen what the model may do), unless the caller allows it explicitly. A run
 * stored without its tool set (by an older glassloop) counts as started with none.
 */
export function checkResumedTools(
  stored: StoredRun,
  offered: readonly string[],
  allowNewTools: boolean,
): void {
  if (allowNewTools) return;
  const started = new Set(stored.tools?.names ?? []);
  const extra = offered.filter((name) => !started.has(name));
  if (extra.length === 0) return;
  const had = stored.tools
    ? `was started with ${stored.tools.names.length > 0 ? `the tools ${stored.tools.names.join(", ")}` : "no tools"}`
    : "was stored without a record of its tools (by an older glassloop)";
  throw new ConfigError(
    `Run ${stored.runId} ${had}, but this agent also offers ${extra.join(", ")}. ` +
      "Resuming would give the model tools the run never had: resume with an agent that offers only the run's tools, " +
      "or pass allowNewTools: true to resume({ ... }) if you mean to.",
  );
}

/** The transcript's latest assistant message: the turn a checkpoint or a resume is about. */
export function lastAssistant(messages: readonly Message[]): AssistantMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as Message;
    if (m.role === "assistant") return m;
  }
  return undefined;
}

/**
 * The record of a resume's answers: each call of the paused run that waits for the person's
 * answer gets one, checked against the question's form (answersFor); answers for a run that waits
 * for none are refused.
 */
export function recordedAnswers(
  pending: readonly PendingCall[],
  given: readonly { toolCallId: string; answer: PersonAnswer }[] | undefined,
): RecordedAnswers | undefined {
  const waiting = pending
    .filter((p) => p.state === "awaiting_input")
    .map((p) => ({ toolCallId: p.call.id, toolName: p.call.name, questions: p.questions ?? [] }));
  if (waiting.length === 0 && (given?.length ?? 0) === 0) return undefined;
  return new RecordedAnswers(answersFor(waiting, given ?? []));
}
