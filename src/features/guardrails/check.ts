/**
 * One guardrail check, the same for every stage: run inside the run (its signal, what is left of
 * its budget), as one side step (a distributed engine records it, so a replay gets the verdict
 * instead of deciding again), then its usage added to the run's, its events reported, the budget
 * checked, and a `guardrail` event.
 */

import { BudgetExceededError, RunError } from "../../core/errors.js";
import type { AgentEvent } from "../../core/vocabulary/events.js";
import type { RunUsage } from "../../core/vocabulary/usage.js";
import type { RunState } from "../../loop/hooks.js";
import { limitsWithin } from "../../loop/limits-check.js";
import { raceAbort } from "../../loop/model-call.js";
import { abortError, budgetError, errorState } from "../../loop/run-state.js";
import { GuardrailFailedError, GuardrailTripwireError } from "./errors.js";
import type { GuardrailStage, GuardrailTools, GuardrailTripwire, GuardrailVerdict } from "./guardrail.js";

/** Where a check acts: which guardrail, at which stage, in which step, on which call. */
export interface CheckSite {
  guardrail: string;
  stage: GuardrailStage;
  step: number;
  toolCallId?: string;
  toolName?: string;
}

/**
 * What one check came to, as a side step records it: plain JSON, so an engine can store it and a
 * replay apply it exactly as the first execution did.
 */
interface CheckRecord {
  verdict?: unknown;
  /** The check threw: its message (the run stops, see GuardrailFailedError). */
  error?: string;
  /** The check's judge ran out of the run's budget. */
  budget?: true;
  usage: RunUsage[];
  events: AgentEvent[];
  durationMs: number;
}

/**
 * Runs one check and returns its verdict (one of `allowed`). Throws the run's abort or budget stop,
 * or a GuardrailFailedError for a check that threw or answered no verdict; a tripwire is returned,
 * for the caller to stop the run where it can (see `tripwireError`).
 */
export async function runCheck<V extends GuardrailVerdict>(
  state: RunState<unknown>,
  site: CheckSite,
  allowed: readonly V["action"][],
  check: (tools: GuardrailTools<unknown>) => V | Promise<V>,
  emit: RunState<unknown>["emit"] = state.emit,
): Promise<V> {
  const run = async (): Promise<CheckRecord> => {
    const started = performance.now();
    const usage: RunUsage[] = [];
    const events: AgentEvent[] = [];
    const tools = checkTools(state, usage, events);
    try {
      // Raced with the signal: a check that ignores it still cannot hold the run past its timeout.
      const verdict = await raceAbort(
        Promise.resolve().then(() => check(tools)),
        state.stop,
      );
      return { verdict, usage, events, durationMs: performance.now() - started };
    } catch (error) {
      if (state.stop.aborted) throw error;
      return {
        error: error instanceof Error ? error.message : String(error),
        ...(error instanceof BudgetExceededError && { budget: true as const }),
        usage,
        events,
        durationMs: performance.now() - started,
      };
    }
  };
  let record: CheckRecord;
  try {
    const { sideStep } = state.hooks;
    record = sideStep ? await sideStep(state, `guardrail:${site.guardrail}`, run) : await run();
  } catch (error) {
    if (state.stop.aborted) throw abortError(state);
    throw error;
  }
  // What the check spent and reported is the run's, whatever it decided.
  for (const usage of record.usage) state.meter.addSubRun(usage);
  for (const event of record.events)
    emit({
      type: "nested",
      step: site.step,
      toolCallId: site.toolCallId ?? "",
      toolName: `guardrail:${site.guardrail}`,
      event,
    });
  // A judge stopped by its ceiling (what the run had left) is the run's budget stop.
  const breach = state.budget.afterModelCall() ?? (record.budget ? state.budget.beforeSideCall() : undefined);
  if (breach) throw budgetError(state, breach);
  const problem = record.error ?? verdictProblem(record.verdict, allowed);
  if (problem !== undefined) {
    report(emit, site, "error", problem, record.durationMs);
    throw new GuardrailFailedError(site, problem, errorState(state));
  }
  const verdict = record.verdict as V;
  const message =
    verdict.action === "reject"
      ? verdict.message
      : verdict.action === "tripwire"
        ? verdict.reason
        : undefined;
  report(emit, site, verdict.action, message, record.durationMs);
  return verdict;
}

/** The error that stops the run for a tripwire verdict. */
export function tripwireError(
  state: RunState<unknown>,
  site: CheckSite,
  verdict: GuardrailTripwire,
): GuardrailTripwireError {
  return new GuardrailTripwireError(site, verdict.reason, verdict.info, errorState(state));
}

/** The tools a check gets: the run's signal, context and remaining budget; usage and events collected into its record. */
function checkTools(
  state: RunState<unknown>,
  usage: RunUsage[],
  events: AgentEvent[],
): GuardrailTools<unknown> {
  const remaining = state.budget.remaining();
  return {
    signal: state.stop.signal,
    context: state.environment.context,
    remaining,
    async runAgent(agent, input) {
      try {
        const result = await agent.run(input, {
          signal: state.stop.signal,
          onEvent: (event) => events.push(event),
          limits: limitsWithin(remaining),
        });
        usage.push(result.usage);
        return result.output;
      } catch (error) {
        // A judge that failed still spent: its usage is the run's.
        if (error instanceof RunError) usage.push(error.usage);
        throw error;
      }
    },
    addUsage: (u) => usage.push(u),
    forward: (event) => events.push(event),
  };
}

/** Why `value` is not a verdict this stage accepts, or undefined when it is one. */
function verdictProblem(value: unknown, allowed: readonly string[]): string | undefined {
  const action = (value as { action?: unknown } | null | undefined)?.action;
  if (typeof action !== "string" || !allowed.includes(action))
    return `it answered ${describe(value)}, not a verdict (${allowed.map((a) => `{ action: "${a}" }`).join(", ")})`;
  const v = value as Record<string, unknown>;
  if (action === "reject" && (typeof v.message !== "string" || v.message === ""))
    return "its reject verdict has no message for the model";
  if (action === "tripwire" && typeof v.reason !== "string") return "its tripwire verdict has no reason";
  return undefined;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  try {
    const text = JSON.stringify(value);
    return text.length > 80 ? `${text.slice(0, 80)}…` : text;
  } catch {
    return typeof value;
  }
}

function report(
  emit: RunState<unknown>["emit"],
  site: CheckSite,
  action: "allow" | "reject" | "tripwire" | "error",
  message: string | undefined,
  durationMs: number,
): void {
  emit({
    type: "guardrail",
    step: site.step,
    name: site.guardrail,
    stage: site.stage,
    action,
    ...(message !== undefined && { message }),
    ...(site.toolCallId !== undefined && { toolCallId: site.toolCallId }),
    ...(site.toolName !== undefined && { toolName: site.toolName }),
    durationMs,
  });
}
