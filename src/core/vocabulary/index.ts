/**
 * The vocabulary (floor 1): the nouns every room shares — messages and their parts, events, usage,
 * limits, the tool outcome, the run status and error codes. It imports nothing outside itself;
 * every other room imports from here (the error classes live beside it in `src/core/errors.ts`).
 */
export type * from "./error-codes.js";
export type * from "./events.js";
export { LIMIT_DEFAULTS, type LimitName, type Limits, type RemainingBudget } from "./limits.js";
export type * from "./messages.js";
export type * from "./outcome.js";
export type * from "./status.js";
export type * from "./usage.js";
