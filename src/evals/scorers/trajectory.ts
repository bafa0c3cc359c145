import type { z } from "zod";
import type { ScoreContext, Scorer, TrajectoryCall } from "../types.js";
import { graded, shown, verdict } from "./result.js";

/** How to match a call's arguments: a partial object (deep), a zod schema, or a predicate. */
export type ArgsMatcher = Record<string, unknown> | z.ZodType | ((args: unknown) => boolean);

/** One expected tool call: its name, or its name and a matcher of its arguments. */
export type ExpectedCall = string | { name: string; args?: ArgsMatcher };

/** Options of `toolsCalled`. */
export interface ToolsCalledOptions {
  /**
   * `sequence`: in this order, other calls in between allowed (default); `exact`: these calls and
   * no others, in order; `set`: each called at least once, any order.
   */
  order?: "sequence" | "exact" | "set";
  name?: string;
}

/**
 * The trajectory called the expected tools (a list, or a function of the trial, e.g. of its
 * `expected`). The score is the share of expected calls found; it passes when all are.
 */
export function toolsCalled<TOutput, TExpected>(
  expected:
    | readonly ExpectedCall[]
    | ((context: ScoreContext<TOutput, TExpected>) => readonly ExpectedCall[]),
  options: ToolsCalledOptions = {},
): Scorer<TOutput, TExpected> {
  const order = options.order ?? "sequence";
  return {
    name: options.name ?? "tools",
    score: (context) => {
      const wanted = typeof expected === "function" ? expected(context) : expected;
      const calls = context.trajectory.calls;
      const called = calls.map((c) => c.name).join(", ") || "no tools";
      if (wanted.length === 0) {
        return verdict(
          order !== "exact" || calls.length === 0,
          `expected no particular calls; called ${called}`,
        );
      }
      let found = 0;
      const missing: string[] = [];
      if (order === "set") {
        for (const w of wanted) {
          if (calls.some((c) => matches(c, w))) found++;
          else missing.push(label(w));
        }
      } else {
        let at = 0;
        for (const w of wanted) {
          const index = calls.findIndex((c, i) => i >= at && matches(c, w));
          if (index < 0) {
            missing.push(label(w));
            continue;
          }
          found++;
          at = index + 1;
        }
      }
      const extra = order === "exact" && calls.length !== wanted.length;
      const share = found / wanted.length;
      const reason =
        missing.length > 0
          ? `missing ${missing.join(", ")} (${order}); called ${called}`
          : extra
            ? `called ${called}; expected exactly ${wanted.map(label).join(", ")}`
            : `called ${called}`;
      return graded(extra ? Math.min(share, 0.99) : share, 1, reason);
    },
  };
}

function label(call: ExpectedCall): string {
  return typeof call === "string" ? call : call.args ? `${call.name}(…)` : call.name;
}

function matches(call: TrajectoryCall, expected: ExpectedCall): boolean {
  const name = typeof expected === "string" ? expected : expected.name;
  if (call.name !== name) return false;
  if (typeof expected === "string" || expected.args === undefined) return true;
  const matcher = expected.args;
  if (typeof matcher === "function") return matcher(call.args);
  if (isZod(matcher)) return matcher.safeParse(call.args).success;
  return partialEqual(call.args, matcher);
}

function isZod(value: unknown): value is z.ZodType {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}

/** Every key of `want` is in `got` with an equal (recursively partial) value. */
function partialEqual(got: unknown, want: unknown): boolean {
  if (want === null || typeof want !== "object") return Object.is(got, want);
  if (got === null || typeof got !== "object") return false;
  if (Array.isArray(want)) {
    return Array.isArray(got) && got.length === want.length && want.every((w, i) => partialEqual(got[i], w));
  }
  return Object.entries(want).every(([k, w]) => partialEqual((got as Record<string, unknown>)[k], w));
}

/** The trial made at most `limit` model calls. */
export function maxSteps<TOutput, TExpected>(limit: number): Scorer<TOutput, TExpected> {
  return {
    name: "max-steps",
    score: ({ trajectory }) =>
      verdict(trajectory.steps <= limit, `${trajectory.steps} model call(s), at most ${limit} allowed`),
  };
}

/** No tool call ended in an error, a timeout, a schema violation or a refusal. */
export function noToolErrors<TOutput, TExpected>(): Scorer<TOutput, TExpected> {
  return {
    name: "no-tool-errors",
    score: ({ trajectory }) => {
      const bad = trajectory.calls.filter((c) => c.status !== undefined && c.status !== "ok");
      return verdict(
        bad.length === 0,
        bad.length === 0
          ? `${trajectory.calls.length} tool call(s), none failed`
          : bad.map((c) => `${c.name} ${c.status}: ${shown(c.content ?? "", 60)}`).join("; "),
      );
    },
  };
}
