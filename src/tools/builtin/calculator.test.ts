import { readFileSync } from "node:fs";
import fc from "fast-check";
import { ToolError } from "glassloop";
import { afterEach, describe, expect, it, vi } from "vitest";
import { calculate, calculatorTool, tidy } from "./calculator.js";
import { ExpressionError, MAX_DEPTH } from "./expression.js";

const runTool = (expression: string) =>
  calculatorTool().run({ expression }, {} as Parameters<ReturnType<typeof calculatorTool>["run"]>[1]);

describe("calculator: what it accepts", () => {
  it.each([
    ["(200 + 10) * 2", 420],
    ["(12+8)*2", 40],
    ["2 + 3 * 4", 14],
    ["2 ^ 3 ^ 2", 512],
    ["2 ** 10", 1024],
    ["-2 ^ 2", -4],
    ["(-2) ^ 2", 4],
    ["2 ^ -1", 0.5],
    ["7 % 3", 1],
    ["-7 % 3", -1],
    ["6 × 7", 42],
    ["84 ÷ 2", 42],
    ["50 − 8", 42],
    ["sqrt(16) + abs(-4)", 8],
    ["log(1000)", 3],
    ["log(8, 2)", 3],
    ["ln(e)", 1],
    ["round(2.5)", 3],
    ["round(-2.5)", -3],
    ["round(3.14159, 2)", 3.14],
    ["min(3, 1, 2) + max(4, 9)", 10],
    ["cos(0) + sin(0) + tan(0)", 1],
    ["PI", Math.PI],
    ["π * 2", Math.PI * 2],
    [".5 + 1e3", 1000.5],
    ["  1\t+\n1 ", 2],
  ])("%s = %d", (expression, expected) => {
    expect(calculate(expression)).toBeCloseTo(expected, 12);
  });

  it("returns tidy numbers to the model: 0.1 + 0.2 is 0.3", async () => {
    expect(await runTool("0.1 + 0.2")).toBe(0.3);
    expect(await runTool("-0 * 1")).toBe(0);
    expect(tidy(1 / 3)).toBe(0.333333333333333);
  });
});

describe("calculator: what it refuses", () => {
  it.each([
    ["__import__('os').system('rm -rf /')", /Unknown name "__import__" at position 0/],
    ["process.exit()", /Unknown name "process" at position 0/],
    ["require('child_process')", /Unknown name "require"/],
    ["1; process.exit(1)", /Unexpected character ";" at position 1/],
    ["constructor.constructor('return 1')()", /Unknown name "constructor"/],
    ["\u0060\u0024{1}\u0060", /Unexpected character "\u0060"/],
    ["[1,2]", /Unexpected character "\["/],
    ["x + 1", /Unknown name "x"/],
    ["1 / 0", /Division by zero/],
    ["5 % 0", /Modulo by zero/],
    ["sqrt(-1)", /sqrt of a negative number/],
    ["ln(0)", /not positive/],
    ["log(8, 1)", /log base/],
    ["10 ^ 400", /too large/],
    ["1e999", /The number 1e999 at position 0 is too large/],
    ["-1e999 + 1", /The number 1e999 at position 1 is too large/],
    ["(-8) ^ (1/3)", /not a real number/],
    ["round(1.5, 0.5)", /whole number/],
    ["sqrt 4", /needs parentheses/],
    ["pi(2)", /constant, not a function/],
    ["min()", /at least 1 argument/],
    ["sqrt(1, 2)", /takes 1 argument/],
    ["(1 + 2", /Expected "\)" but found the end/],
    ["1 + 2)", /Unexpected "\)" at position 5/],
    ["2 3", /Unexpected number 3 at position 2/],
    ["50%", /Expected a number, a name or "\(" but found the end/],
    ["", /Empty expression/],
    ["   ", /Empty expression/],
  ])("%s", (expression, message) => {
    expect(() => calculate(expression)).toThrow(ExpressionError);
    expect(() => calculate(expression)).toThrow(message);
  });

  it("refuses as a ToolError the model can read, saying what is accepted", async () => {
    const error = await Promise.resolve()
      .then(() => runTool("__import__('os').system('ls')"))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toMatch(
      /Cannot evaluate .*__import__.*Unknown name.*it does not run code/,
    );
  });

  it("refuses inputs that are too long or too deeply nested without blowing the stack", () => {
    expect(() => calculate(`${"1+".repeat(600)}1`)).toThrow(/limit is 1000/);
    expect(() => calculate(`${"(".repeat(MAX_DEPTH + 2)}1${")".repeat(MAX_DEPTH + 2)}`)).toThrow(
      /nests deeper/,
    );
    expect(() => calculate(`${"-".repeat(200)}1`)).toThrow(/nests deeper/);
    expect(() => calculate(`${"2^".repeat(200)}2`)).toThrow(/nests deeper/);
  });

  it("contains no eval, Function constructor or vm in its source", () => {
    for (const file of ["calculator.ts", "expression.ts"]) {
      const source = readFileSync(new URL(file, import.meta.url), "utf8");
      expect(source).not.toMatch(/\beval\s*\(|new\s+Function|\bFunction\s*\(|node:vm|\bimport\s*\(/);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Fuzzing. A tree is generated, rendered to text with as few parentheses as precedence allows
// (plus random redundant ones, spaces and operator spellings), and evaluated by a reference
// written here over the tree itself, so parser bugs (precedence, associativity) show up as
// differences.

type Tree =
  | { t: "num"; v: number }
  | { t: "const"; name: "pi" | "e"; spelling: string }
  | { t: "neg"; x: Tree }
  | { t: "bin"; op: "+" | "-" | "*" | "/" | "%" | "^"; l: Tree; r: Tree; spelling: string }
  | { t: "fn"; name: string; args: Tree[] }
  | { t: "paren"; x: Tree };

const PREC: Record<string, number> = { "+": 1, "-": 1, "*": 2, "/": 2, "%": 2, neg: 3, "^": 4 };
const ATOM = 5;

function prec(tree: Tree): number {
  if (tree.t === "bin") return PREC[tree.op] as number;
  if (tree.t === "neg") return PREC.neg as number;
  return ATOM;
}

function wrap(text: string): string {
  return `(${text})`;
}

function render(tree: Tree, space: string): string {
  switch (tree.t) {
    case "num":
      return String(tree.v);
    case "const":
      return tree.spelling;
    case "paren":
      return wrap(render(tree.x, space));
    case "neg": {
      const inner = render(tree.x, space);
      return `-${prec(tree.x) < 3 ? wrap(inner) : inner}`;
    }
    case "fn":
      return `${tree.name}(${tree.args.map((a) => render(a, space)).join(`,${space}`)})`;
    case "bin": {
      const p = PREC[tree.op] as number;
      let left = render(tree.l, space);
      let right = render(tree.r, space);
      if (tree.op === "^") {
        // The base of a power must be atomic (−2^2 is −(2^2)); the exponent may be a unary or a power.
        if (prec(tree.l) < ATOM) left = wrap(left);
        if (prec(tree.r) < 3) right = wrap(right);
      } else {
        if (prec(tree.l) < p) left = wrap(left);
        if (prec(tree.r) <= p) right = wrap(right);
      }
      return `${left}${space}${tree.spelling}${space}${right}`;
    }
  }
}

class RefError extends Error {}

function ok(v: number): number {
  if (!Number.isFinite(v)) throw new RefError("not finite");
  return v;
}

/** The reference semantics, written from the calculator's documentation. */
function reference(tree: Tree): number {
  switch (tree.t) {
    case "num":
      return tree.v;
    case "const":
      return tree.name === "pi" ? Math.PI : Math.E;
    case "paren":
      return reference(tree.x);
    case "neg":
      return -reference(tree.x);
    case "bin": {
      const a = reference(tree.l);
      const b = reference(tree.r);
      if ((tree.op === "/" || tree.op === "%") && b === 0) throw new RefError("by zero");
      const ops = {
        "+": () => a + b,
        "-": () => a - b,
        "*": () => a * b,
        "/": () => a / b,
        "%": () => a % b,
        "^": () => a ** b,
      };
      return ok(ops[tree.op]());
    }
    case "fn": {
      const xs = tree.args.map(reference);
      const x = xs[0] as number;
      switch (tree.name) {
        case "sqrt":
          if (x < 0) throw new RefError("negative");
          return ok(Math.sqrt(x));
        case "abs":
          return ok(Math.abs(x));
        case "sin":
          return ok(Math.sin(x));
        case "cos":
          return ok(Math.cos(x));
        case "tan":
          return ok(Math.tan(x));
        case "ln":
          if (x <= 0) throw new RefError("ln");
          return ok(Math.log(x));
        case "log": {
          const base = xs[1] ?? 10;
          if (x <= 0 || base <= 0 || base === 1) throw new RefError("log");
          if (base === 10) return ok(Math.log10(x));
          if (base === Math.E) return ok(Math.log(x));
          return ok(Math.log(x) / Math.log(base));
        }
        case "round": {
          const digits = xs[1] ?? 0;
          if (!Number.isInteger(digits) || Math.abs(digits) > 15) throw new RefError("digits");
          const f = 10 ** digits;
          return ok((Math.sign(x) * Math.round(Math.abs(x) * f)) / f);
        }
        case "min":
          return ok(Math.min(...xs));
        case "max":
          return ok(Math.max(...xs));
      }
      throw new Error(`test bug: ${tree.name}`);
    }
  }
}

const leaf: fc.Arbitrary<Tree> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 1000 }).map((v): Tree => ({ t: "num", v })) },
  {
    weight: 2,
    arbitrary: fc
      .double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true })
      .map((v): Tree => ({ t: "num", v: Math.abs(v) })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom<["pi" | "e", string]>(["pi", "pi"], ["pi", "PI"], ["pi", "π"], ["e", "e"], ["e", "E"])
      .map(([name, spelling]): Tree => ({ t: "const", name, spelling })),
  },
);

const spellings: Record<string, string[]> = {
  "+": ["+"],
  "-": ["-", "−"],
  "*": ["*", "×"],
  "/": ["/", "÷"],
  "%": ["%"],
  "^": ["^", "**"],
};

const trees = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    tie("tree").map((x): Tree => ({ t: "neg", x })),
    tie("tree").map((x): Tree => ({ t: "paren", x })),
    fc
      .tuple(fc.constantFrom("+", "-", "*", "/", "%", "^" as const), tie("tree"), tie("tree"), fc.nat())
      .map(([op, l, r, k]): Tree => {
        const names = spellings[op] as string[];
        return { t: "bin", op: op as "+", l, r, spelling: names[k % names.length] as string };
      }),
    fc
      .tuple(fc.constantFrom("sqrt", "abs", "sin", "cos", "tan", "ln", "log", "round"), tie("tree"))
      .map(([name, x]): Tree => ({ t: "fn", name, args: [x] })),
    fc
      .tuple(fc.constantFrom("log", "round"), tie("tree"), fc.integer({ min: -3, max: 6 }))
      .map(([name, x, k]): Tree => ({ t: "fn", name, args: [x, { t: "num", v: Math.abs(k) }] })),
    fc
      .tuple(fc.constantFrom("min", "max"), fc.array(tie("tree"), { minLength: 1, maxLength: 4 }))
      .map(([name, args]): Tree => ({ t: "fn", name, args })),
  ),
})).tree;

describe("calculator: fuzzing", () => {
  it("valid expressions match the reference evaluator", () => {
    fc.assert(
      fc.property(trees, fc.constantFrom("", " ", "  "), (tree, space) => {
        const text = render(tree, space);
        let expected: number | RefError;
        try {
          expected = reference(tree);
        } catch (error) {
          if (!(error instanceof RefError)) throw error;
          expected = error;
        }
        if (text.length > 1000) return; // the length limit has its own test
        if (expected instanceof RefError) {
          expect(() => calculate(text), text).toThrow(ExpressionError);
        } else {
          expect(calculate(text), text).toBe(expected);
        }
      }),
      { numRuns: 3000 },
    );
  });

  describe("random input never executes code", () => {
    const sentinel = "__glassloopPwned";
    afterEach(() => {
      vi.restoreAllMocks();
      delete (globalThis as Record<string, unknown>)[sentinel];
    });

    const fragments = [
      "process",
      ".",
      "exit",
      "(",
      ")",
      "__import__",
      "'os'",
      '"',
      "system",
      "constructor",
      "globalThis",
      `${sentinel}=1`,
      "require",
      "`",
      "${",
      "}",
      "=",
      ";",
      "=>",
      "[",
      "]",
      "{",
      "this",
      "eval",
      "Function",
      "import",
      "1",
      "2.5",
      "+",
      "-",
      "*",
      "/",
      "^",
      "**",
      "%",
      ",",
      "sqrt",
      "pi",
      "e",
      " ",
      "\n",
      "\\",
      "\u0000",
    ];
    const hostile = fc.oneof(
      fc.array(fc.constantFrom(...fragments), { maxLength: 30 }).map((parts) => parts.join("")),
      fc.string({ unit: "binary", maxLength: 60 }),
      fc.string({ unit: "grapheme-ascii", maxLength: 60 }),
    );

    it("either returns a finite number or refuses with an ExpressionError", () => {
      const exit = vi.spyOn(process, "exit").mockImplementation(() => {
        throw new Error("process.exit was called");
      });
      fc.assert(
        fc.property(hostile, (text) => {
          try {
            expect(Number.isFinite(calculate(text))).toBe(true);
          } catch (error) {
            expect(error, text).toBeInstanceOf(ExpressionError);
          }
          expect((globalThis as Record<string, unknown>)[sentinel]).toBeUndefined();
        }),
        { numRuns: 5000 },
      );
      expect(exit).not.toHaveBeenCalled();
    });
  });
});
