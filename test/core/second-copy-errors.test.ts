/**
 * Two copies of glassloop in one process (a TypeScript module loaded through tsx with a clone's
 * sources, beside the built CLI): an error made by the other copy is not `instanceof` this copy's
 * classes, yet it must keep its meaning where the meaning decides something: the exit code, and
 * whether an eval's trial could not start (a configuration error is the eval's, never a score).
 */
import { describe, expect, it } from "vitest";
import { exitCodeFor } from "../../src/cli/failure.js";
import { ConfigError, GlassloopError, glassloopCodeOf } from "../../src/core/errors.js";
import { setupFailure } from "../../src/evals/trial-outcome.js";

/** What the other copy's ConfigError looks like from here: the shared mark, its own class. */
class OtherCopyError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "ConfigError";
    this.code = code;
  }
}
Object.defineProperty(OtherCopyError.prototype, Symbol.for("glassloop.error"), { value: true });

describe("an error from a second copy of glassloop", () => {
  const foreign = new OtherCopyError("config", 'Model "openai:gpt-4o-mini" needs an API key');

  it("is not this copy's class, but its code is read", () => {
    expect(foreign instanceof GlassloopError).toBe(false);
    expect(glassloopCodeOf(foreign)).toBe("config");
    expect(glassloopCodeOf(new ConfigError("x"))).toBe("config");
  });

  it("exits 2 like this copy's configuration error, not 1", () => {
    expect(exitCodeFor(foreign)).toBe(2);
    expect(exitCodeFor(new ConfigError("x"))).toBe(2);
  });

  it("stops an eval as a trial that could not start, itself or as a run error's cause", () => {
    expect(setupFailure(foreign)).toBe(foreign);
    expect(setupFailure(new Error("Model call failed", { cause: foreign }))).toBe(foreign);
  });

  it("an unmarked error with a code is no glassloop error: a tool's or a library's stays a failure", () => {
    const stranger = Object.assign(new Error("nope"), { code: "config" });
    expect(glassloopCodeOf(stranger)).toBeUndefined();
    expect(setupFailure(stranger)).toBeUndefined();
    expect(exitCodeFor(stranger)).toBe(1);
  });
});
