/**
 * The calculator's expression language: a tokenizer and a recursive-descent parser that build a
 * small AST. Nothing here evaluates JavaScript; every name and operator is looked up in fixed tables,
 * so text that is not arithmetic can only ever produce an `ExpressionError`.
 */

/** A parsed arithmetic expression. */
export type Expr =
  | { kind: "number"; value: number }
  | { kind: "constant"; name: ConstantName }
  | { kind: "unary"; op: "-" | "+"; operand: Expr }
  | { kind: "binary"; op: BinaryOp; left: Expr; right: Expr }
  | { kind: "call"; name: FunctionName; args: Expr[] };

/** The binary operators, in their ASCII spelling (× ÷ − and ** are read as * / - ^). */
export type BinaryOp = "+" | "-" | "*" | "/" | "%" | "^";

/** Named constants the calculator knows. */
export const CONSTANTS = { pi: Math.PI, e: Math.E } as const;
/** A constant's name. */
export type ConstantName = keyof typeof CONSTANTS;

/** Functions the calculator knows, with how many arguments each accepts. */
export const FUNCTIONS = {
  sqrt: { min: 1, max: 1 },
  sin: { min: 1, max: 1 },
  cos: { min: 1, max: 1 },
  tan: { min: 1, max: 1 },
  log: { min: 1, max: 2 },
  ln: { min: 1, max: 1 },
  abs: { min: 1, max: 1 },
  round: { min: 1, max: 2 },
  min: { min: 1, max: Number.POSITIVE_INFINITY },
  max: { min: 1, max: Number.POSITIVE_INFINITY },
} as const;
/** A function's name. */
export type FunctionName = keyof typeof FUNCTIONS;

/** Longest expression accepted, so a hostile input cannot make parsing expensive. */
export const MAX_EXPRESSION_LENGTH = 1_000;
/** Deepest nesting accepted, so recursion stays far from the stack limit. */
export const MAX_DEPTH = 64;

/** What the calculator accepts, for error messages. */
export const GRAMMAR_SUMMARY =
  "numbers, + - * / ^ % (also × ÷ − **), parentheses, sqrt sin cos tan log ln abs round min max, pi, e";

/** An expression the calculator refuses, with the position of the problem. */
export class ExpressionError extends Error {
  constructor(
    message: string,
    /** Where in the text the problem is; absent for errors found while evaluating. */
    readonly position?: number,
  ) {
    super(message);
    this.name = "ExpressionError";
  }
}

type Token =
  | { type: "number"; value: number; pos: number }
  | { type: "name"; value: string; pos: number }
  | { type: "op"; value: BinaryOp | "(" | ")" | ","; pos: number }
  | { type: "end"; pos: number }
  /** A character outside the language; reported only when parsing reaches it, so errors come in reading order. */
  | { type: "bad"; char: string; pos: number };

const OPERATOR_ALIASES: Record<string, BinaryOp | "(" | ")" | ","> = {
  "+": "+",
  "-": "-",
  "\u2212": "-",
  "*": "*",
  "\u00d7": "*",
  "/": "/",
  "\u00f7": "/",
  "%": "%",
  "^": "^",
  "(": "(",
  ")": ")",
  ",": ",",
};

const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_\u03c0][A-Za-z0-9_]*/y;

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (source.startsWith("**", i)) {
      tokens.push({ type: "op", value: "^", pos: i });
      i += 2;
      continue;
    }
    const op = OPERATOR_ALIASES[ch];
    if (op !== undefined) {
      tokens.push({ type: "op", value: op, pos: i });
      i++;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(source);
    if (number) {
      const value = Number(number[0]);
      // 1e999 reads as Infinity, which JSON (and so the model) would see as null.
      if (!Number.isFinite(value))
        throw new ExpressionError(`The number ${number[0]} at position ${i} is too large`, i);
      tokens.push({ type: "number", value, pos: i });
      i += number[0].length;
      continue;
    }
    NAME.lastIndex = i;
    const name = NAME.exec(source);
    if (name) {
      tokens.push({ type: "name", value: name[0], pos: i });
      i += name[0].length;
      continue;
    }
    tokens.push({ type: "bad", char: String.fromCodePoint(source.codePointAt(i) ?? 0), pos: i });
    return tokens;
  }
  tokens.push({ type: "end", pos: source.length });
  return tokens;
}

/** Parses `source` into an AST, or throws an `ExpressionError` that says what is wrong and where. */
export function parseExpression(source: string): Expr {
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError(
      `Expression is ${source.length} characters; the limit is ${MAX_EXPRESSION_LENGTH}`,
      MAX_EXPRESSION_LENGTH,
    );
  }
  const parser = new Parser(tokenize(source));
  if (parser.peek().type === "end") throw new ExpressionError("Empty expression", 0);
  const expr = parser.expression(0);
  const rest = parser.peek();
  if (rest.type !== "end") throw new ExpressionError(`Unexpected ${describe(rest)}`, rest.pos);
  return expr;
}

class Parser {
  #index = 0;
  constructor(private readonly tokens: Token[]) {}

  peek(): Token {
    const token = this.tokens[this.#index] as Token;
    if (token.type === "bad") {
      throw new ExpressionError(
        `Unexpected character ${JSON.stringify(token.char)} at position ${token.pos}`,
        token.pos,
      );
    }
    return token;
  }

  #next(): Token {
    const token = this.peek();
    if (token.type !== "end") this.#index++;
    return token;
  }

  #isOp(...values: string[]): boolean {
    const token = this.peek();
    return token.type === "op" && values.includes(token.value);
  }

  #expect(value: ")" | "("): void {
    const token = this.#next();
    if (token.type !== "op" || token.value !== value) {
      throw new ExpressionError(`Expected "${value}" but found ${describe(token)}`, token.pos);
    }
  }

  /** additive := term (("+" | "-") term)* */
  expression(depth: number): Expr {
    if (depth > MAX_DEPTH) {
      throw new ExpressionError(`Expression nests deeper than ${MAX_DEPTH} levels`, this.peek().pos);
    }
    let left = this.#term(depth);
    while (this.#isOp("+", "-")) {
      const op = (this.#next() as { value: "+" | "-" }).value;
      left = { kind: "binary", op, left, right: this.#term(depth) };
    }
    return left;
  }

  /** term := unary (("*" | "/" | "%") unary)* */
  #term(depth: number): Expr {
    let left = this.#unary(depth);
    while (this.#isOp("*", "/", "%")) {
      const op = (this.#next() as { value: "*" | "/" | "%" }).value;
      left = { kind: "binary", op, left, right: this.#unary(depth) };
    }
    return left;
  }

  /** unary := ("-" | "+") unary | power; so -2^2 is -(2^2), as in mathematics. */
  #unary(depth: number): Expr {
    if (depth > MAX_DEPTH) {
      throw new ExpressionError(`Expression nests deeper than ${MAX_DEPTH} levels`, this.peek().pos);
    }
    if (this.#isOp("-", "+")) {
      const op = (this.#next() as { value: "-" | "+" }).value;
      return { kind: "unary", op, operand: this.#unary(depth + 1) };
    }
    return this.#power(depth);
  }

  /** power := primary ("^" unary)?, right-associative: 2^3^2 is 2^(3^2). */
  #power(depth: number): Expr {
    const base = this.#primary(depth);
    if (!this.#isOp("^")) return base;
    this.#next();
    return { kind: "binary", op: "^", left: base, right: this.#unary(depth + 1) };
  }

  /** primary := number | constant | name "(" args ")" | "(" expression ")" */
  #primary(depth: number): Expr {
    const token = this.#next();
    if (token.type === "number") return { kind: "number", value: token.value };
    if (token.type === "op" && token.value === "(") {
      const inner = this.expression(depth + 1);
      this.#expect(")");
      return inner;
    }
    if (token.type === "name") return this.#name(token, depth);
    throw new ExpressionError(`Expected a number, a name or "(" but found ${describe(token)}`, token.pos);
  }

  #name(token: Token & { type: "name" }, depth: number): Expr {
    const name = token.value === "\u03c0" ? "pi" : token.value.toLowerCase();
    if (Object.hasOwn(FUNCTIONS, name)) {
      const fn = name as FunctionName;
      if (!this.#isOp("(")) {
        throw new ExpressionError(`Function ${fn} needs parentheses, e.g. ${fn}(2)`, token.pos);
      }
      this.#next();
      const args: Expr[] = [];
      if (!this.#isOp(")")) {
        args.push(this.expression(depth + 1));
        while (this.#isOp(",")) {
          this.#next();
          args.push(this.expression(depth + 1));
        }
      }
      this.#expect(")");
      const { min, max } = FUNCTIONS[fn];
      if (args.length < min || args.length > max) {
        const wanted =
          min === max ? `${min}` : max === Number.POSITIVE_INFINITY ? `at least ${min}` : `${min} or ${max}`;
        throw new ExpressionError(`${fn} takes ${wanted} argument(s), got ${args.length}`, token.pos);
      }
      return { kind: "call", name: fn, args };
    }
    if (Object.hasOwn(CONSTANTS, name)) {
      if (this.#isOp("(")) throw new ExpressionError(`${name} is a constant, not a function`, token.pos);
      return { kind: "constant", name: name as ConstantName };
    }
    throw new ExpressionError(`Unknown name "${token.value}" at position ${token.pos}`, token.pos);
  }
}

function describe(token: Token): string {
  switch (token.type) {
    case "end":
      return "the end of the expression";
    case "number":
      return `number ${token.value} at position ${token.pos}`;
    case "name":
      return `"${token.value}" at position ${token.pos}`;
    case "op":
      return `"${token.value}" at position ${token.pos}`;
    case "bad":
      return `${JSON.stringify(token.char)} at position ${token.pos}`;
  }
}
