import { z } from "zod";
import { ToolError } from "../../core/errors.js";
import { type Tool, tool } from "../tool.js";
import {
  type BinaryOp,
  CONSTANTS,
  type Expr,
  ExpressionError,
  type FunctionName,
  GRAMMAR_SUMMARY,
  parseExpression,
} from "./expression.js";

/** Evaluates an arithmetic expression (see `GRAMMAR_SUMMARY`); throws `ExpressionError` for anything else. */
export function calculate(expression: string): number {
  // Every step is checked already; this is the last line of defence for the value the model gets.
  return finite(evaluate(parseExpression(expression)), "the expression");
}

/** The value of a parsed expression; every step must stay a finite real number. */
export function evaluate(expr: Expr): number {
  switch (expr.kind) {
    case "number":
      return expr.value;
    case "constant":
      return CONSTANTS[expr.name];
    case "unary": {
      const value = evaluate(expr.operand);
      return expr.op === "-" ? -value : value;
    }
    case "binary":
      return finite(binary(expr.op, evaluate(expr.left), evaluate(expr.right)), expr.op);
    case "call":
      return finite(call(expr.name, expr.args.map(evaluate)), `${expr.name}()`);
  }
}

function binary(op: BinaryOp, a: number, b: number): number {
  switch (op) {
    case "+":
      return a + b;
    case "-":
      return a - b;
    case "*":
      return a * b;
    case "/":
      if (b === 0) throw new ExpressionError("Division by zero");
      return a / b;
    case "%":
      if (b === 0) throw new ExpressionError("Modulo by zero");
      return a % b;
    case "^":
      return a ** b;
  }
}

function call(name: FunctionName, args: number[]): number {
  const [x = 0, y] = args;
  switch (name) {
    case "sqrt":
      if (x < 0) throw new ExpressionError(`sqrt of a negative number (${x})`);
      return Math.sqrt(x);
    case "sin":
      return Math.sin(x);
    case "cos":
      return Math.cos(x);
    case "tan":
      return Math.tan(x);
    case "ln":
      return logarithm(x, Math.E, "ln");
    case "log":
      return logarithm(x, y ?? 10, "log");
    case "abs":
      return Math.abs(x);
    case "round":
      return roundTo(x, y ?? 0);
    case "min":
      return Math.min(...args);
    case "max":
      return Math.max(...args);
  }
}

function logarithm(x: number, base: number, name: string): number {
  if (x <= 0) throw new ExpressionError(`${name} of a number that is not positive (${x})`);
  if (base <= 0 || base === 1) throw new ExpressionError(`log base must be positive and not 1 (${base})`);
  if (base === 10) return Math.log10(x);
  if (base === Math.E) return Math.log(x);
  return Math.log(x) / Math.log(base);
}

/** Half away from zero, like most calculators (Math.round would send -2.5 to -2). */
function roundTo(x: number, digits: number): number {
  if (!Number.isInteger(digits) || digits < -15 || digits > 15) {
    throw new ExpressionError(`round's digits must be a whole number from -15 to 15 (${digits})`);
  }
  const factor = 10 ** digits;
  return (Math.sign(x) * Math.round(Math.abs(x) * factor)) / factor;
}

function finite(value: number, what: string): number {
  if (Number.isNaN(value)) throw new ExpressionError(`The result of ${what} is not a real number`);
  if (!Number.isFinite(value)) throw new ExpressionError(`The result of ${what} is too large`);
  return value;
}

/** A result for people and models: 15 significant digits, so 0.1+0.2 reads 0.3, and no -0. */
export function tidy(value: number): number {
  const rounded = Number(value.toPrecision(15));
  return Object.is(rounded, -0) ? 0 : rounded;
}

const input = z.object({
  expression: z.string().describe("An arithmetic expression, e.g. (12+8)*2 or sqrt(2)^2 or max(3, 4.5)"),
});

/** The `calculator` tool: a real expression parser, never `eval`; anything but arithmetic is refused. */
export function calculatorTool(): Tool<z.output<typeof input>, unknown, number> {
  return tool({
    name: "calculator",
    description:
      "Evaluates an arithmetic expression and returns the number. Supports + - * / ^ % and parentheses, " +
      "sqrt, sin, cos, tan (radians), log (base 10, or log(x, base)), ln, abs, round(x) or round(x, digits), " +
      "min, max, and the constants pi and e.",
    input,
    idempotent: true,
    run: ({ expression }) => {
      try {
        return tidy(calculate(expression));
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        throw new ToolError(
          `Cannot evaluate ${JSON.stringify(expression)}: ${error.message}. ` +
            `The calculator accepts only ${GRAMMAR_SUMMARY}; it does not run code.`,
        );
      }
    },
  });
}
