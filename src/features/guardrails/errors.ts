import { RunError, type RunErrorState } from "../../core/errors.js";
import type { GuardrailStage } from "./guardrail.js";

/**
 * A guardrail stopped the run (its verdict was `tripwire`). Like every RunError it carries the
 * transcript (every call paired with a result) and the usage so far, the guardrail's own included.
 */
export class GuardrailTripwireError extends RunError {
  /** The guardrail's name. */
  readonly guardrail: string;
  readonly stage: GuardrailStage;
  readonly reason: string;
  /** What the guardrail attached to its verdict (never stored or traced). */
  readonly info: unknown;
  /** The call it judged, for a tool guardrail. */
  readonly toolCallId: string | undefined;
  constructor(
    where: { guardrail: string; stage: GuardrailStage; toolCallId?: string | undefined },
    reason: string,
    info: unknown,
    state: RunErrorState,
  ) {
    super(
      "guardrail_tripwire",
      `Guardrail ${where.guardrail} (${where.stage}) stopped the run: ${reason}`,
      state,
    );
    this.guardrail = where.guardrail;
    this.stage = where.stage;
    this.reason = reason;
    this.info = info;
    this.toolCallId = where.toolCallId;
  }
}

/**
 * A guardrail threw, or answered something that is no verdict: the run stops rather than go on
 * unchecked (guardrails fail closed). The cause is attached.
 */
export class GuardrailFailedError extends RunError {
  readonly guardrail: string;
  readonly stage: GuardrailStage;
  constructor(
    where: { guardrail: string; stage: GuardrailStage },
    detail: string,
    state: RunErrorState,
    options?: { cause?: unknown },
  ) {
    super(
      "guardrail_failed",
      `Guardrail ${where.guardrail} (${where.stage}) failed: ${detail}`,
      state,
      options,
    );
    this.guardrail = where.guardrail;
    this.stage = where.stage;
  }
}
