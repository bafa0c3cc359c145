import { describe, expectTypeOf, it } from "vitest";
import type { A2AAgentResult, A2APeerReason, a2aAgent } from "../../src/a2a/index.js";
import type { Tool } from "../../src/index.js";

describe("a2aAgent's types", () => {
  it("is a tool the model calls with a message (and an optional context id) that returns the peer's result", () => {
    type Made = Awaited<ReturnType<typeof a2aAgent>>;
    expectTypeOf<Made>().toExtend<
      Tool<{ message: string; contextId?: string | undefined }, unknown, A2AAgentResult>
    >();
    expectTypeOf<A2AAgentResult["text"]>().toEqualTypeOf<string>();
    expectTypeOf<"timeout">().toExtend<A2APeerReason>();
  });
});
