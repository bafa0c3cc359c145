import type { CombineRule } from "./types.js";

// No runtime imports: the viewer's page bundles this file.
/** The rule in words, for reports. */
export function describeRule(rule: CombineRule): string {
  if (rule.rule === "all") return "every scorer passes";
  if (rule.rule === "any") return "any scorer passes";
  return `${rule.weights ? "weighted " : ""}mean score >= ${rule.threshold}`;
}
