import { packedMap } from "../core/packed-map.js";
import { InputRequiredError, QuestionAsked, RecordedAnswers } from "../core/questions.js";
import type { ToolCall, ToolMessage } from "../core/vocabulary/messages.js";
import type { ToolOutcome } from "../core/vocabulary/outcome.js";
import type { AskedQuestion } from "../core/vocabulary/questions.js";
import type { Breach } from "./budget.js";
import { mapConcurrent } from "./environment/concurrency.js";
import type { ReadyCall } from "./environment/environment.js";
import { abortedOutcome } from "./environment/feedback.js";
import type { CallAnswers, PreparedCall, RunState, StepResult, TurnStop } from "./hooks.js";
import { FINAL_RESULT_TOOL } from "./output.js";
import { abortError, budgetError, errorState, silent } from "./run-state.js";

/**
 * Takes the turn of one assistant message: its tool calls, each dispatched (dispatchCall), executed
 * in the environment (executeTool → environment.execute) where the tool's own `run` is called.
 * Results are appended in the order the model listed the calls, every call gets exactly one, and
 * only then does a stop (budget, loop, abort) propagate, so the transcript is complete whatever
 * happens. `known` holds the outcomes a resumed turn already has: those calls are not run again.
 */
export async function takeTurn(
  state: RunState<unknown>,
  step: number,
  calls: ToolCall[],
  known?: ReadonlyMap<string, ToolOutcome>,
): Promise<StepResult> {
  const { environment, hooks } = state;
  const prepared = packedMap(calls, (call) => environment.prepare(call));
  const results: ToolOutcome[] = new Array(calls.length);
  let halt: TurnStop | undefined;

  for (const call of calls) announceCall(state, step, call);
  // Before anything runs: human approval answers or pauses (approval.ts).
  // (Not awaited at all without a hook: this runs every step.)
  // A resumed turn's known outcomes count as answered: a call that already ran is not reviewed again.
  if (hooks.beforeTools)
    answer(
      results,
      await hooks.beforeTools(state, step, prepared, known ? calls.map((c) => known.get(c.id)) : results),
    );

  // The first budget breach of the turn, shared by its calls.
  const stop: BudgetStop = { breach: undefined, known };

  // Terminal calls run first, one at a time in listed order: the first that succeeds ends the run
  // and the turn's other calls are skipped; one that fails keeps its result and the next is tried.
  // Calls that asked the person a question (QuestionAsked): the run pauses once the turn settles.
  const asked = new Map<number, QuestionAsked>();
  const settle = async (i: number): Promise<ToolOutcome | undefined> => {
    try {
      return await dispatchCall(state, step, prepared[i] as ReadyCall<unknown>, stop);
    } catch (error) {
      if (!(error instanceof QuestionAsked)) throw error;
      asked.set(i, error);
      return undefined;
    }
  };

  let ended: { toolName: string; output: unknown } | undefined;
  for (const [endIndex, p] of prepared.entries()) {
    if (p.kind !== "ready" || !p.tool.terminal || results[endIndex]) continue;
    const outcome = await settle(endIndex);
    if (!outcome) continue;
    results[endIndex] = outcome;
    if (outcome.status !== "ok") continue;
    ended = { toolName: p.tool.name, output: outcome.value };
    for (let i = 0; i < calls.length; i++) {
      results[i] ??= { status: "not_executed", content: `Not executed: the run ended with ${p.tool.name}.` };
    }
    break;
  }

  if (!ended) {
    for (let i = 0; i < prepared.length; i++) {
      const p = prepared[i] as PreparedCall;
      if (p.kind !== "invalid" || results[i]) continue;
      results[i] = {
        status: "invalid",
        content: p.content,
        ...(p.errorDetail !== undefined && { errorDetail: p.errorDetail }),
      };
    }
    // The loop guard answers repeats from memory and may stop the run (loop-guard.ts).
    const decision = hooks.beforeConcurrentCalls?.(state, step, prepared, results);
    if (decision) {
      answer(results, decision.answers);
      halt = decision.stop;
    }
    const runnable: number[] = [];
    for (let i = 0; i < prepared.length; i++) if (!results[i]) runnable.push(i);
    if (halt) {
      for (const i of runnable)
        results[i] = { status: "not_executed", content: `Not executed: the run stopped (${halt.reason}).` };
    } else {
      await mapConcurrent(runnable, environment.options.concurrency, async (i) => {
        const outcome = await settle(i);
        if (outcome) results[i] = outcome;
      });
    }
    // Answered in place (a run that waits where it is): the asking calls run again with the answers.
    while (asked.size > 0 && (await askPerson(state, step, calls, results, asked, stop))) {
      const again = [...asked.keys()];
      asked.clear();
      await mapConcurrent(again, environment.options.concurrency, async (i) => {
        const outcome = await settle(i);
        if (outcome) results[i] = outcome;
      });
      // A terminal call that succeeded once answered ends the run, as it would have at first.
      for (const i of again) {
        const p = prepared[i] as PreparedCall;
        const outcome = results[i];
        if (ended || p.kind !== "ready" || !p.tool.terminal || outcome?.status !== "ok") continue;
        ended = { toolName: p.tool.name, output: outcome.value };
      }
    }
  }

  // The person's answers were to this turn's questions: a later call, even one the model gives the
  // same id, is asked anew (its question's record starts empty) rather than handed an old answer.
  state.answers = undefined;
  const messages: ToolMessage[] = calls.map((call, i) =>
    recordResult(state, step, call, results[i] as ToolOutcome),
  );
  state.messages.push(...messages);

  if (halt) throw halt.error(state);
  if (state.stop.aborted) throw abortError(state);
  if (stop.breach) throw budgetError(state, stop.breach);
  hooks.afterTurn?.(state, step, { prepared, outcomes: results, resumed: known !== undefined });
  if (ended) return { kind: "done", outcome: { output: ended.output, finishedBy: ended.toolName } };
  // One pass instead of filter, some and map: this runs every step.
  let invalid = 0;
  let failed = false;
  let detail = "";
  for (const r of results) {
    if (r.status === "invalid") detail = invalid++ === 0 ? r.content : `${detail} | ${r.content}`;
    if (r.status === "error" || r.status === "timeout" || r.status === "invalid") failed = true;
  }
  return invalid === calls.length ? { kind: "next", failed, unusable: detail } : { kind: "next", failed };
}

/**
 * Some calls asked the person a question: with durability the run is stored paused with them
 * waiting and ends with InputRequiredError (the turn's results stay out of the transcript, as for
 * an approval; the calls that finished keep their outcomes in the store). A run that waits in
 * place (a distributed engine's) gets the answers back instead: they become the run's record and
 * true is returned, so the asking calls run again. A run that cannot pause (nothing stores it), or
 * that is stopping anyway, gives each such call a result the model reads.
 */
async function askPerson(
  state: RunState<unknown>,
  step: number,
  calls: readonly ToolCall[],
  results: ToolOutcome[],
  asked: ReadonlyMap<number, QuestionAsked>,
  stop: BudgetStop,
): Promise<boolean> {
  const { pauseForInput } = state.hooks;
  if (pauseForInput && !state.stop.aborted && !stop.breach) {
    const questions = new Map<number, AskedQuestion[]>();
    for (const [i, { question }] of asked) {
      const id = (calls[i] as ToolCall).id;
      questions.set(i, state.answers?.withNew(id, question) ?? [{ question }]);
    }
    const answered = await pauseForInput(state, step, { calls, outcomes: results, asked: questions });
    if (answered) {
      state.answers = new RecordedAnswers(answered);
      return true;
    }
    throw new InputRequiredError(
      [...asked].map(([i, { question }]) => ({
        toolCallId: (calls[i] as ToolCall).id,
        toolName: (calls[i] as ToolCall).name,
        question,
      })),
      errorState(state),
    );
  }
  for (const [i, { question }] of asked) {
    results[i] = {
      status: "error",
      content: `${question.source} asked the person a question, but this run cannot wait for an answer (nothing stores it, or its client cannot show the question), so the call did not finish.`,
    };
  }
  return false;
}

/** Takes the hooks' answers into the turn's outcomes; a call already answered keeps its answer. */
function answer(results: ToolOutcome[], answers: CallAnswers | undefined): void {
  if (answers) for (const [i, outcome] of answers) results[i] ??= outcome;
}

/** What the calls of one turn share: its first budget breach, and a resumed turn's known outcomes. */
interface BudgetStop {
  breach: Breach | undefined;
  known: ReadonlyMap<string, ToolOutcome> | undefined;
}

/** Dispatches one validated call of a turn: budget checked and counted, then through the hooks around it. */
function dispatchCall(
  state: RunState<unknown>,
  step: number,
  ready: ReadyCall<unknown>,
  stop: BudgetStop,
): Promise<ToolOutcome> {
  // A resumed turn: a call that finished before the crash (or was cut off by it) is not run again.
  const known = stop.known?.get(ready.call.id);
  if (known) return Promise.resolve(known);
  if (state.stop.aborted) return Promise.resolve(abortedOutcome(ready.tool.name));
  // final_result runs no code of anyone's: it only carries an answer the model already paid
  // for, so like a text answer it spends no budget and no budget can refuse it.
  if (!isFinalResult(ready)) {
    stop.breach ??= state.budget.beforeToolCall();
    const { breach } = stop;
    if (breach)
      return Promise.resolve({
        status: "not_executed",
        content: `Not executed: the ${breach.limit} budget is spent.`,
      });
    state.meter.addToolCall();
  }
  const { toolCall } = state.hooks;
  return toolCall
    ? toolCall(state, step, ready, () => executeTool(state, step, ready))
    : executeTool(state, step, ready);
}

/** Executes the tool in the environment (validated arguments, hidden context, timeout, size limits). */
function executeTool(
  state: RunState<unknown>,
  step: number,
  ready: ReadyCall<unknown>,
): Promise<ToolOutcome> {
  // Methods, not arrow properties: no per-call name definitions under a name-keeping loader.
  return state.environment.execute(ready, {
    stop: state.stop,
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
    answered(question) {
      return state.answers?.take(ready.call.id, question);
    },
  });
}

function isFinalResult(ready: ReadyCall<unknown>): boolean {
  return ready.tool.terminal && ready.tool.name === FINAL_RESULT_TOOL;
}

/** Emits the `tool_call` event that comes before every call's `tool_result`, run or not. */
export function announceCall(state: RunState<unknown>, step: number, call: ToolCall): void {
  if (state.emit === silent) return;
  state.emit({
    type: "tool_call",
    step,
    toolCallId: call.id,
    toolName: call.name,
    arguments: call.arguments,
  });
}

/** Appends a tool result and emits its `tool_result` event. */
export function recordResult(
  state: RunState<unknown>,
  step: number,
  call: ToolCall,
  outcome: ToolOutcome,
): ToolMessage {
  // Assigned rather than spread in: same keys in the same order, without the slow literal path.
  const message: ToolMessage = {
    role: "tool",
    toolCallId: call.id,
    toolName: call.name,
    content: outcome.content,
  };
  if (outcome.status !== "ok") message.isError = true;
  // Checked when the result was made (or stored): only valid parts reach here.
  else {
    if (outcome.images) message.images = outcome.images;
    if (outcome.files) message.files = outcome.files;
  }
  if (state.emit === silent) return message;
  state.emit({
    type: "tool_result",
    step,
    toolCallId: call.id,
    toolName: call.name,
    status: outcome.status,
    content: outcome.content,
    durationMs: outcome.durationMs ?? 0,
    ...(outcome.errorDetail !== undefined && { errorDetail: outcome.errorDetail }),
  });
  return message;
}
