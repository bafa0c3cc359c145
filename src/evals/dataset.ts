import { ConfigError } from "../index.js";
import type { Dataset, EvalCase } from "./types.js";

/**
 * A dataset written in TypeScript: `expected` is typed, so scorers typed against the agent's
 * output check it at compile time. Cases without an id get `case-1`, `case-2`, ... by position.
 */
export function dataset<TExpected>(name: string, cases: readonly EvalCase<TExpected>[]): Dataset<TExpected> {
  const seen = new Set<string>();
  const withIds = cases.map((c, i) => {
    if (typeof c.input !== "string")
      throw new ConfigError(`dataset ${name}: case ${i + 1} has no string input`);
    const id = c.id ?? `case-${i + 1}`;
    if (seen.has(id)) throw new ConfigError(`dataset ${name}: two cases have the id "${id}"`);
    seen.add(id);
    return { ...c, id };
  });
  return { name, cases: withIds };
}
