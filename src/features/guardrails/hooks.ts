import { ConfigError, type RunError } from "../../core/errors.js";
import type { EventInit } from "../../core/vocabulary/events.js";
import type { Message, UserMessage } from "../../core/vocabulary/messages.js";
import type { ToolOutcome } from "../../core/vocabulary/outcome.js";
import type { ReadyCall } from "../../loop/environment/environment.js";
import type { ModelNext, RunHooks, RunState, StepRequest } from "../../loop/hooks.js";
import { FINAL_RESULT_TOOL } from "../../loop/output.js";
import { silent } from "../../loop/run-state.js";
import type { ModelResponse } from "../../models/model.js";
import { type CheckSite, runCheck, tripwireError } from "./check.js";
import type { Guardrails, InputGuardrail, InputVerdict, ToolGuardrail } from "./guardrail.js";

/**
 * Guardrails as a run feature. Input guardrails act around the run's first model call (step 1:
 * a resumed run past it was checked already), output guardrails in `decide` on an answer that
 * would end the run, tool guardrails around each call that runs. The feature is attached
 * outermost (before a durable engine's hooks), so each check is its own side step and a
 * rejected call never becomes a tool step.
 */
export function guardrailHooks(guardrails: Guardrails, input: string): RunHooks {
  const hooks: RunHooks = {};
  const inputs = guardrails.input ?? [];
  const outputs = guardrails.output ?? [];
  const tools = guardrails.tools ?? [];
  if (inputs.length > 0) hooks.modelCall = inputHook(inputs, input);
  if (outputs.length > 0)
    hooks.decide = async (state, step, result) => {
      if (result.kind !== "done") return result;
      for (const guardrail of outputs) {
        const site: CheckSite = { guardrail: guardrail.name, stage: "output", step };
        const { output, finishedBy } = result.outcome;
        const verdict = await runCheck(state, site, ["allow", "reject", "tripwire"], (t) =>
          guardrail.check({ output, finishedBy, input, messages: state.messages }, t),
        );
        if (verdict.action === "tripwire") throw tripwireError(state, site, verdict);
        if (verdict.action === "reject") {
          state.messages.push({ role: "user", content: outputRejected(verdict.message) });
          return {
            kind: "next",
            unusable: `guardrail ${guardrail.name} rejected the answer: ${verdict.message}`,
          };
        }
      }
      return result;
    };
  if (tools.length > 0) Object.assign(hooks, toolHooks(tools));
  return hooks;
}

/** Throws a ConfigError for guardrails without a name, or a name used twice at one stage. */
export function checkGuardrails(guardrails: Guardrails): void {
  const stages: [string, readonly { name?: unknown }[] | undefined][] = [
    ["input", guardrails.input],
    ["output", guardrails.output],
    ["tools", guardrails.tools],
  ];
  for (const [stage, list] of stages) {
    const seen = new Set<string>();
    for (const g of list ?? []) {
      if (typeof g.name !== "string" || g.name.trim() === "")
        throw new ConfigError(`guardrails.${stage}: every guardrail needs a name`);
      if (seen.has(g.name))
        throw new ConfigError(`guardrails.${stage}: the name ${JSON.stringify(g.name)} is used twice`);
      seen.add(g.name);
    }
  }
  for (const g of guardrails.tools ?? [])
    if (!g.before && !g.after)
      throw new ConfigError(`guardrails.tools: ${JSON.stringify(g.name)} has neither before nor after`);
}

/** What the model reads when an output guardrail sends its answer back. */
export function outputRejected(message: string): string {
  return `Your answer was not accepted: ${message}\nAnswer again.`;
}

/**
 * The input guardrails around step 1's model call: those in `before` mode first, then the model
 * call alongside the `parallel` ones, its answer and events held until they all decided.
 */
function inputHook(inputs: readonly InputGuardrail[], text: string): NonNullable<RunHooks["modelCall"]> {
  const before = inputs.filter((g) => g.mode !== "parallel");
  const parallel = inputs.filter((g) => g.mode === "parallel");
  return async (state, step, request, next) => {
    if (step !== 1) return next(request);
    const checkAll = (list: readonly InputGuardrail[]) => checkInputs(state, list, text, request);
    await checkAll(before);
    if (parallel.length === 0) return next(request);
    return alongside(state, () => checkAll(parallel), next, request);
  };
}

/** Runs input guardrails one after another; the first tripwire stops the run. */
async function checkInputs(
  state: RunState<unknown>,
  list: readonly InputGuardrail[],
  text: string,
  request: StepRequest,
): Promise<void> {
  const turn = lastUser(request.messages);
  // Taken now: in parallel mode the model call's events are held while these checks report.
  const emit = state.emit;
  for (const guardrail of list) {
    const site: CheckSite = { guardrail: guardrail.name, stage: "input", step: 1 };
    const verdict = await runCheck<InputVerdict>(
      state,
      site,
      ["allow", "tripwire"],
      (t) =>
        guardrail.check(
          { text, images: turn?.images ?? [], files: turn?.files ?? [], messages: request.messages },
          t,
        ),
      emit,
    );
    if (verdict.action === "tripwire") throw tripwireError(state, site, verdict);
  }
}

/**
 * The model call and the checks together. The checks start first (a distributed engine takes step
 * ids in call order) and report through the run's emitter as they decide; what the model call
 * reports is held until every check decided, and nothing of the call is used before then. A
 * tripwire waits for the call to settle (its cost counts, its answer is dropped), so no event of
 * it can follow the run's end.
 */
async function alongside(
  state: RunState<unknown>,
  checks: () => Promise<void>,
  next: ModelNext,
  request: StepRequest,
): Promise<ModelResponse> {
  const emit = state.emit;
  const checked = checks().then(
    () => undefined,
    (error: unknown) => ({ error }),
  );
  // A run nobody listens to keeps its do-nothing emitter (hot paths test for it).
  const held: EventInit[] = [];
  if (emit !== silent) state.emit = (event) => held.push(event);
  const answered = next(request).then(
    (response) => ({ ok: true as const, response }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const failure = await checked;
  const answer = await answered;
  state.emit = emit;
  for (const event of held) emit(event);
  if (failure) throw failure.error;
  if (!answer.ok) throw answer.error;
  return answer.response;
}

/** Tool guardrails around each call that runs, and the stop a tripwire leaves for the end of the turn. */
function toolHooks(guardrails: readonly ToolGuardrail[]): RunHooks {
  // A tripwire (or a failed check) inside a turn: the turn's calls not yet started do not run,
  // and the run stops once the calls already running have their results (invariant 1).
  let stop: RunError | undefined;
  const watching = (name: string) =>
    guardrails.filter((g) => g.tools === undefined || g.tools.includes(name));
  return {
    async toolCall(state, step, ready, next) {
      const watched = ready.tool.name === FINAL_RESULT_TOOL ? [] : watching(ready.tool.name);
      if (watched.length === 0 && !stop) return next();
      if (stop) return notRun(stop);
      try {
        const before = await judgeCall(state, step, ready, watched, undefined);
        if (before) return before;
        const outcome = await next();
        return (await judgeCall(state, step, ready, watched, outcome)) ?? outcome;
      } catch (error) {
        if (state.stop.aborted) throw error;
        stop ??= error as RunError;
        return notRun(stop);
      }
    },
    afterTurn() {
      if (!stop) return;
      const error = stop;
      stop = undefined;
      throw error;
    },
  };
}

/**
 * Runs the watching guardrails' `before` (no outcome yet) or `after` (on `outcome`); returns the
 * outcome that replaces the call's (a rejection), or undefined to go on. Throws a tripwire.
 */
async function judgeCall(
  state: RunState<unknown>,
  step: number,
  ready: ReadyCall<unknown>,
  guardrails: readonly ToolGuardrail[],
  outcome: ToolOutcome | undefined,
): Promise<ToolOutcome | undefined> {
  const { call } = ready;
  const base = { toolName: call.name, toolCallId: call.id, args: ready.args, arguments: call.arguments };
  for (const guardrail of guardrails) {
    const stage = outcome ? "tool_after" : "tool_before";
    const judge = outcome ? guardrail.after : guardrail.before;
    if (!judge) continue;
    const site: CheckSite = {
      guardrail: guardrail.name,
      stage,
      step,
      toolCallId: call.id,
      toolName: call.name,
    };
    const verdict = await runCheck(state, site, ["allow", "reject", "tripwire"], (t) =>
      outcome
        ? (guardrail.after as NonNullable<ToolGuardrail["after"]>)(
            {
              ...base,
              status: outcome.status,
              content: outcome.content,
              images: outcome.images ?? [],
              files: outcome.files ?? [],
            },
            t,
          )
        : (guardrail.before as NonNullable<ToolGuardrail["before"]>)(base, t),
    );
    if (verdict.action === "tripwire") throw tripwireError(state, site, verdict);
    if (verdict.action === "reject") return { status: "rejected", content: verdict.message };
  }
  return undefined;
}

/** The result of a call a guardrail's stop kept from running (or whose result it withheld). */
function notRun(stop: RunError): ToolOutcome {
  return { status: "not_executed", content: `Not executed: the run stopped (${stop.code}).` };
}

function lastUser(messages: readonly Message[]): UserMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === "user") return m;
  }
  return undefined;
}
