import type { Scorer } from "../types.js";
import { shown, verdict } from "./result.js";

/** Options of the text scorers. */
export interface TextOptions {
  /** Compare case-insensitively (default false). */
  ignoreCase?: boolean;
  /** Trim and collapse runs of whitespace first (default true). */
  normalizeWhitespace?: boolean;
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function normalize(text: string, options: TextOptions): string {
  let out = options.normalizeWhitespace === false ? text : text.trim().replace(/\s+/g, " ");
  if (options.ignoreCase) out = out.toLowerCase();
  return out;
}

/**
 * The output equals `value` (default: the case's `expected`): strings compared as text
 * (whitespace normalized), anything else as JSON-equal.
 */
export function exact<TOutput, TExpected>(
  value?: TExpected,
  options: TextOptions = {},
): Scorer<TOutput, TExpected> {
  return {
    name: "exact",
    score: ({ output, expected }) => {
      const want = value === undefined ? expected : value;
      if (want === undefined) return verdict(false, "nothing to compare with: no value and no expected");
      const same =
        typeof want === "string" && typeof output === "string"
          ? normalize(output, options) === normalize(want, options)
          : JSON.stringify(output) === JSON.stringify(want);
      return verdict(same, same ? `equals ${shown(want)}` : `${shown(output)} is not ${shown(want)}`);
    },
  };
}

/** The output's text contains `value` (default: the case's `expected` as text). */
export function contains<TOutput, TExpected>(
  value?: string,
  options: TextOptions = {},
): Scorer<TOutput, TExpected> {
  return {
    name: "contains",
    score: ({ output, expected }) => {
      const want = value ?? (expected === undefined ? undefined : textOf(expected));
      if (want === undefined) return verdict(false, "nothing to look for: no value and no expected");
      const has = normalize(textOf(output ?? ""), options).includes(normalize(want, options));
      return verdict(has, has ? `contains ${shown(want)}` : `${shown(output)} lacks ${shown(want)}`);
    },
  };
}

/** The output's text matches `pattern`. */
export function regex<TOutput, TExpected>(pattern: RegExp): Scorer<TOutput, TExpected> {
  return {
    name: "regex",
    score: ({ output }) => {
      const text = textOf(output ?? "");
      // A global or sticky pattern keeps state between calls; a fresh copy tests every output alike.
      const hit = new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, "")).test(text);
      return verdict(hit, hit ? `matches ${pattern}` : `${shown(text)} does not match ${pattern}`);
    },
  };
}

/** Options of `numeric`. */
export interface NumericOptions {
  /** The number to hit (default: the case's `expected`). */
  value?: number;
  /** Allowed absolute difference (default 0). */
  tolerance?: number;
  /** Allowed difference relative to the target, e.g. 0.01 for 1% (used when larger than `tolerance`). */
  relative?: number;
}

/** The first number in the output (or the output itself when a number) is within tolerance of the target. */
export function numeric<TOutput, TExpected>(options: NumericOptions = {}): Scorer<TOutput, TExpected> {
  return {
    name: "numeric",
    score: ({ output, expected }) => {
      const target = options.value ?? (typeof expected === "number" ? expected : Number(expected));
      if (!Number.isFinite(target)) return verdict(false, `no numeric target (expected ${shown(expected)})`);
      const got = firstNumber(output);
      if (got === undefined) return verdict(false, `no number in ${shown(output)}`);
      const allowed = Math.max(options.tolerance ?? 0, Math.abs(target) * (options.relative ?? 0));
      const off = Math.abs(got - target);
      return verdict(
        off <= allowed,
        off <= allowed
          ? `${got} is within ${allowed} of ${target}`
          : `${got} is ${off} from ${target} (allowed ${allowed})`,
      );
    },
  };
}

function firstNumber(output: unknown): number | undefined {
  if (typeof output === "number") return output;
  const match = textOf(output ?? "")
    .replace(/(\d),(\d{3})/g, "$1$2")
    .match(/-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/i);
  return match ? Number(match[0]) : undefined;
}
