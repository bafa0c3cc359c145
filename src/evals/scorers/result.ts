import type { ScoreResult } from "../types.js";

/** A pass/fail score: 1 or 0 with its reason. */
export function verdict(pass: boolean, reason: string): ScoreResult {
  return { score: pass ? 1 : 0, pass, reason };
}

/** A score in [0, 1] that passes at `threshold` or above. */
export function graded(score: number, threshold: number, reason: string): ScoreResult {
  const clamped = Number.isFinite(score) ? Math.min(1, Math.max(0, score)) : 0;
  return { score: clamped, pass: clamped >= threshold, reason };
}

/** A short printable form of a value for reasons. */
export function shown(value: unknown, max = 80): string {
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
