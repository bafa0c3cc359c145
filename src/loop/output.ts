/** Name of the built-in tool that carries a typed final answer. */
export const FINAL_RESULT_TOOL = "final_result";

/** Feedback for a plain-text answer when the run must end through a tool. */
export function textNotAllowed(endTools: readonly string[]): string {
  const names = endTools.map((n) => `"${n}"`).join(" or ");
  return `A plain-text answer does not end this task. Call ${names} with the final answer.`;
}
