import { costOf } from "../entries/models.js";
import {
  GlassloopError,
  type Model,
  type ModelObserver,
  type ModelRequest,
  type ModelResponse,
} from "../index.js";

/** Output tokens a call is assumed to be able to spend when its request sets no `maxOutputTokens`. */
export const DEFAULT_OUTPUT_RESERVE = 1024;

/** A model call was refused because its worst case would spend past the eval's budget. */
export class EvalBudgetError extends GlassloopError {
  constructor(
    readonly worstCaseUsd: number,
    readonly leftUsd: number,
  ) {
    super(
      "eval_budget",
      `Not calling the model: this call could cost up to $${worstCaseUsd.toFixed(6)} and the eval has $${leftUsd.toFixed(6)} left for it`,
    );
  }
}

/**
 * The worst case of one call: every byte of the request as an input token (a token is at least
 * one byte, so this bounds any tokenizer) plus `maxOutputTokens` (or the reserve) of output.
 */
export function worstCaseCost(model: Model, request: ModelRequest, reserve = DEFAULT_OUTPUT_RESERVE): number {
  if (!model.price) return 0;
  const { signal: _signal, ...plain } = request;
  const inputTokens = Buffer.byteLength(JSON.stringify(plain));
  return costOf({ inputTokens, outputTokens: request.maxOutputTokens ?? reserve }, model.price);
}

/**
 * A model that refuses a call whose worst case does not fit in `left()` dollars, so an eval stops
 * before spending past its budget rather than after. The loop's own `maxCostUsd` checks spend
 * only between calls; this checks the call that is about to happen.
 */
export class GuardedModel implements Model {
  readonly id: string;
  readonly price?: Model["price"];

  constructor(
    readonly inner: Model,
    private readonly left: () => number | undefined,
    private readonly reserve = DEFAULT_OUTPUT_RESERVE,
    /** Told of each call refused (the refusal may be caught by the run that made it, e.g. a judge's). */
    private readonly onRefuse?: (error: EvalBudgetError) => void,
  ) {
    this.id = inner.id;
    if (inner.price) this.price = inner.price;
  }

  generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    const left = this.left();
    if (left !== undefined && this.inner.price) {
      const worst = worstCaseCost(this.inner, request, this.reserve);
      if (worst > left) {
        const refused = new EvalBudgetError(worst, left);
        this.onRefuse?.(refused);
        return Promise.reject(refused);
      }
    }
    return this.inner.generate(request, observer);
  }
}
