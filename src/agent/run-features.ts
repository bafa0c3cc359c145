import type { Message } from "../core/vocabulary/messages.js";
import { type ApprovalDecision, ApprovalGate, type ApprovalHandler } from "../features/approval/approval.js";
import { contextHooks } from "../features/context-view.js";
import { durabilityHooks } from "../features/durability/durable.js";
import type { Persistence } from "../features/durability/persistence.js";
import { guardrailHooks } from "../features/guardrails/hooks.js";
import { LoopGuard, loopGuardHooks } from "../features/loop-guard.js";
import { planningHooks } from "../features/plan.js";
import { reflectionHooks } from "../features/reflect.js";
import type { RunHooks, RunState } from "../loop/hooks.js";
import type { RunTools, StoredRun } from "../store/store.js";
import type { AgentConfig } from "./agent-config.js";
import { composeHooks } from "./compose-hooks.js";

/** What one run brings to its features besides the agent's configuration. */
export interface RunFeatureOptions {
  input: string;
  session?: string | undefined;
  history?: readonly Message[] | undefined;
  resumed?: StoredRun | undefined;
  /** Decisions on calls a paused run waits for (resume's approve and reject). */
  decisions?: readonly ApprovalDecision[] | undefined;
  onApproval?: ApprovalHandler | undefined;
  /** A durable engine's hooks (run option `hooks`): outermost, so its steps record what the features decided. */
  hooks?: RunHooks | undefined;
  rebuild: (history: readonly Message[]) => Message[];
  /** The tools a new run starts with, recorded so a resume can offer exactly those. */
  tools: RunTools;
}

/**
 * Attaches a run's features, in the order their hooks run (the first is the outermost around a
 * call): guardrails, an engine's hooks, durability, approval, the loop guard, planning, the
 * context view, reflection. Returns
 * the function that frees the run's session; it must be called once the run is over.
 */
export async function attachFeatures(
  state: RunState<unknown>,
  persistence: Persistence,
  config: Pick<
    AgentConfig<unknown, unknown>,
    "loopGuard" | "memory" | "recall" | "plan" | "reflect" | "guardrails"
  >,
  run: RunFeatureOptions,
): Promise<() => void> {
  const guard = config.loopGuard === false ? undefined : new LoopGuard(config.loopGuard);
  const gated = state.environment.registry.list().some((t) => t.needsApproval);
  const { durable, messages, release } = await persistence.attach(state, {
    input: run.input,
    session: run.session,
    history: run.history,
    resumed: run.resumed,
    // A run that may pause for approval must be stored to be resumed, like a session run.
    mayPause: gated && run.onApproval === undefined,
    guard,
    rebuild: run.rebuild,
    tools: run.tools,
  });
  if (messages) state.messages = messages;
  const features: RunHooks[] = [];
  // Guardrails outermost, even around a durable engine's steps: each check is a side step of its
  // own, and a call a guardrail refuses never becomes a tool step or a checkpoint.
  if (config.guardrails) features.push(guardrailHooks(config.guardrails, run.input));
  if (run.hooks) features.push(run.hooks);
  if (durable) features.push(durabilityHooks(durable, run.resumed));
  if (gated || run.decisions) {
    const gate = new ApprovalGate({
      ...(run.decisions && { decisions: run.decisions }),
      ...(run.onApproval && { handler: run.onApproval }),
      ...(durable && { pause: (s: RunState<unknown>, pending) => durable.pause(s, pending) }),
    });
    features.push(gate.hooks());
  }
  if (guard) features.push(loopGuardHooks(guard));
  const { plan, memory, recall, reflect } = config;
  if (plan) features.push(planningHooks(plan === true || plan.reviseOnFailure !== false));
  features.push(contextHooks({ ...(memory && { memory }), ...(recall && { recall }), input: run.input }));
  if (reflect) features.push(reflectionHooks(reflect, run.input));
  state.hooks = composeHooks(features);
  return release;
}
