import { mapConcurrent } from "../environment/concurrency.js";
import type { InvalidCall, ReadyCall } from "../environment/environment.js";
import { truncate } from "../environment/feedback.js";
import { LoopDetectedError } from "../errors.js";
import type { ToolCall, ToolMessage } from "../vocabulary/messages.js";
import type { ToolOutcome } from "../vocabulary/outcome.js";
import type { Breach } from "./budget.js";
import { FINAL_RESULT_TOOL } from "./output.js";
import {
  abortError,
  announceCall,
  budgetError,
  errorState,
  type RunState,
  recordResult,
} from "./run-state.js";

/** How a turn of tool calls ended. */
export type TurnResult =
  | { kind: "continue"; unusable: boolean; detail: string; failed: boolean }
  | { kind: "end"; toolName: string; output: unknown };

/**
 * Handles the tool calls of one assistant message. Results are appended in the order the model
 * listed the calls, every call gets exactly one, and only then does a stop (budget, loop, abort)
 * propagate, so the transcript is complete whatever happens.
 */
export async function runTurn(
  state: RunState<unknown>,
  step: number,
  calls: ToolCall[],
): Promise<TurnResult> {
  const { environment, guard } = state;
  const prepared = calls.map((call) => environment.prepare(call));
  const results: ToolOutcome[] = new Array(calls.length);
  let loop: { toolName: string; repeats: number } | undefined;

  for (const call of calls) announceCall(state, step, call);
  // Human approval (approval.ts): rejected calls get their answer; an undecided one pauses the run.
  // (Not awaited at all without a gate: this runs every step.)
  if (state.approval)
    for (const [i, decided] of await state.approval.review(state, prepared)) results[i] = decided;

  // The first budget breach of the turn, shared by its calls.
  const stop: TurnStop = { breach: undefined };

  // Terminal calls run first, one at a time in listed order: the first that succeeds ends the run
  // and the turn's other calls are skipped; one that fails keeps its result and the next is tried.
  let ended: { toolName: string; output: unknown } | undefined;
  for (const [endIndex, p] of prepared.entries()) {
    if (p.kind !== "ready" || !p.tool.terminal || results[endIndex]) continue;
    const outcome = await executeCall(state, step, p, stop);
    results[endIndex] = outcome;
    if (outcome.status !== "ok") continue;
    ended = { toolName: p.tool.name, output: outcome.value };
    for (let i = 0; i < calls.length; i++) {
      results[i] ??= { status: "not_executed", content: `Not executed: the run ended with ${p.tool.name}.` };
    }
    break;
  }

  if (!ended) {
    const runnable: number[] = [];
    prepared.forEach((p, i) => {
      if (results[i]) return;
      if (p.kind === "invalid") {
        const { content, errorDetail } = p as InvalidCall;
        results[i] = { status: "invalid", content, ...(errorDetail !== undefined && { errorDetail }) };
        return;
      }
      const repeat = guard?.check(p.call);
      if (repeat && guard) {
        guard.record(p.call, repeat.earlierContent, repeat.repeats);
        results[i] = {
          status: "repeated",
          // Instruction first, so the size limit can only cut the repeated result, never the point.
          content: truncate(
            `You already called ${p.call.name} with these exact arguments in the previous step. Do not repeat the call; use its result or try something different. Its result was: ${repeat.earlierContent}`,
            p.tool.maxResultChars ?? environment.options.maxResultChars,
          ),
        };
        if (repeat.repeats > guard.maxRepeats)
          loop ??= { toolName: p.call.name, repeats: repeat.repeats + 1 };
        return;
      }
      runnable.push(i);
    });
    if (loop) {
      for (const i of runnable)
        results[i] = { status: "not_executed", content: "Not executed: the run stopped (loop detected)." };
    } else {
      await mapConcurrent(runnable, environment.options.concurrency, async (i) => {
        const ready = prepared[i] as ReadyCall<unknown>;
        const outcome = await executeCall(state, step, ready, stop);
        results[i] = outcome;
        if (outcome.status === "ok" || outcome.status === "error") guard?.record(ready.call, outcome.content);
      });
    }
  }

  const messages: ToolMessage[] = calls.map((call, i) =>
    recordResult(state, step, call, results[i] as ToolOutcome),
  );
  state.messages.push(...messages);
  guard?.nextTurn();

  if (loop) throw new LoopDetectedError(loop.toolName, loop.repeats, errorState(state));
  if (state.signal.aborted) throw abortError(state);
  if (stop.breach) throw budgetError(state, stop.breach);
  if (ended) return { kind: "end", ...ended };
  // One pass instead of filter, some and map: this runs every step.
  let invalid = 0;
  let failed = false;
  let detail = "";
  for (const r of results) {
    if (r.status === "invalid") detail = invalid++ === 0 ? r.content : `${detail} | ${r.content}`;
    if (r.status === "error" || r.status === "timeout" || r.status === "invalid") failed = true;
  }
  return { kind: "continue", unusable: invalid === calls.length, failed, detail };
}

interface TurnStop {
  breach: Breach | undefined;
}

/** Runs one validated call of a turn: budget checked and counted, checkpointed when durable. */
async function executeCall(
  state: RunState<unknown>,
  step: number,
  ready: ReadyCall<unknown>,
  stop: TurnStop,
): Promise<ToolOutcome> {
  const { durable } = state;
  // A resumed turn: a call that finished before the crash (or was cut off by it) is not run again.
  const known = durable?.known(ready.call);
  if (known) return known;
  if (state.signal.aborted)
    return { status: "aborted", content: `Tool ${ready.tool.name} was aborted: the run was stopped.` };
  // final_result runs no code of anyone's: it only carries an answer the model already paid
  // for, so like a text answer it spends no budget and no budget can refuse it.
  if (!isFinalResult(ready)) {
    stop.breach ??= state.budget.beforeToolCall();
    const { breach } = stop;
    if (breach)
      return { status: "not_executed", content: `Not executed: the ${breach.limit} budget is spent.` };
    state.meter.addToolCall();
  }
  if (durable) await durable.started(state, ready.call);
  // Methods, not arrow properties: no per-call name definitions under a name-keeping loader.
  const outcome = await state.environment.execute(ready, {
    signal: state.signal,
    messages: state.messages,
    usage() {
      return state.meter.snapshot();
    },
    remaining() {
      return state.budget.remaining();
    },
    addUsage(usage) {
      state.meter.addSubRun(usage);
    },
    forward(event) {
      state.emit({ type: "nested", step, toolCallId: ready.call.id, toolName: ready.tool.name, event });
    },
  });
  if (durable) await durable.finished(state, ready.call, outcome);
  return outcome;
}

function isFinalResult(ready: ReadyCall<unknown>): boolean {
  return ready.tool.terminal && ready.tool.name === FINAL_RESULT_TOOL;
}
