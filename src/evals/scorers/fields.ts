import type { z } from "zod";
import type { ScoreContext, Scorer } from "../types.js";
import { graded } from "./result.js";

type Shape = z.ZodObject;

/**
 * Typed-output field checks: each field of `schema` is checked against the output's field (a zod
 * object, or a function of the trial that builds one from `expected`). The score is the share of
 * fields that pass; the reason names the ones that did not.
 */
export function fields<TOutput, TExpected>(
  schema: Shape | ((context: ScoreContext<TOutput, TExpected>) => Shape),
  name = "fields",
): Scorer<TOutput, TExpected> {
  return {
    name,
    score: (context) => {
      const shape = typeof schema === "function" ? schema(context) : schema;
      const output = context.output as unknown;
      if (output === null || typeof output !== "object") {
        return graded(0, 1, `the output is not an object: ${typeof output}`);
      }
      const keys = Object.keys(shape.shape);
      const failed: string[] = [];
      for (const key of keys) {
        const field = shape.shape[key] as z.ZodType;
        const checked = field.safeParse((output as Record<string, unknown>)[key]);
        if (!checked.success) failed.push(`${key}: ${checked.error.issues[0]?.message ?? "invalid"}`);
      }
      const share = keys.length === 0 ? 1 : (keys.length - failed.length) / keys.length;
      return graded(share, 1, failed.length === 0 ? `all ${keys.length} field(s) pass` : failed.join("; "));
    },
  };
}
