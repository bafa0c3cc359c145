export { type CustomScore, scorer } from "./custom.js";
export { fields } from "./fields.js";
export { type JudgeOptions, judge } from "./judge.js";
export { graded, verdict } from "./result.js";
export { contains, exact, type NumericOptions, numeric, regex, type TextOptions } from "./text.js";
export { maxCost, maxLatency } from "./thresholds.js";
export {
  type ArgsMatcher,
  type ExpectedCall,
  maxSteps,
  noToolErrors,
  type ToolsCalledOptions,
  toolsCalled,
} from "./trajectory.js";
