import { describe, expectTypeOf, it } from "vitest";
import { GlassloopError, type RunError } from "./errors.js";
import type { ErrorCode } from "./vocabulary/error-codes.js";
import type { RunStatus, StoredRunStatus, TraceRunStatus } from "./vocabulary/status.js";

describe("the error vocabulary's types", () => {
  it("types GlassloopError.code as the closed ErrorCode union, so a misspelt code does not compile", () => {
    expectTypeOf<GlassloopError["code"]>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<RunError["code"]>().toEqualTypeOf<ErrorCode>();
    // @ts-expect-error: not a code glassloop has
    new GlassloopError("budget_exeeded", "typo");
  });

  it("builds the store's and the trace's run statuses on the one RunStatus", () => {
    expectTypeOf<RunStatus>().toExtend<StoredRunStatus>();
    expectTypeOf<RunStatus>().toExtend<TraceRunStatus>();
    expectTypeOf<Exclude<StoredRunStatus, RunStatus>>().toEqualTypeOf<"running" | "discarded">();
    expectTypeOf<Exclude<TraceRunStatus, RunStatus>>().toEqualTypeOf<"incomplete">();
  });
});
