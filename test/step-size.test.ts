import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MODEL_CALL, measure, STEP } from "../scripts/step-size.js";

// The counts docs/architecture.md gives for one step and one model call, measured on this tree by
// scripts/step-size.ts. A renamed function would silently drop its file from the count, so every
// name must still be defined; a step or a model call that grows past its ceiling fails here.
const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Names older trees used; the script still lists them so it can measure an older checkout. */
const OLDER_NAMES = ["callThroughView", "runTurn", "executeCall", "runTool", "withToolAttachments"];

describe("scripts/step-size.ts on this tree", () => {
  const sizes = measure(ROOT);

  it("finds every function it names for one step and one model call", () => {
    expect(sizes.missing.filter((n) => !OLDER_NAMES.includes(n))).toEqual([]);
    expect(MODEL_CALL.length).toBeGreaterThan(0);
    expect(STEP.length).toBeGreaterThan(0);
  });

  it("keeps one featureless step to four files of the loop, about 1,000 lines", () => {
    expect(sizes.step.files).toEqual([
      "loop/environment/environment.ts",
      "loop/loop.ts",
      "loop/model-call.ts",
      "loop/turn.ts",
    ]);
    expect(sizes.step.lines).toBeLessThanOrEqual(1_100);
  });

  it("counts one default model call from agent.run to the socket and back, both sides", () => {
    const { loopSide, transportSide, total } = sizes.modelCall;
    expect(loopSide.files).toContain("agent/agent.ts");
    expect(loopSide.files).toContain("providers/openai/response.ts");
    expect(transportSide.files).toContain("models/http-provider.ts");
    expect(
      transportSide.files.every((f) => f === "models/http-provider.ts" || f.startsWith("models/http/")),
    ).toBe(true);
    expect(total.files.length).toBe(loopSide.files.length + transportSide.files.length);
    // A default agent attaches no loop guard (no tools), no persistence (nothing to store) and no
    // context view (no memory or recall): none of their files is on its model call.
    for (const feature of [
      "features/loop-guard.ts",
      "features/durability/persistence.ts",
      "features/context-view.ts",
      "agent/compose-hooks.ts",
    ])
      expect(loopSide.files).not.toContain(feature);
    // A plain-text request walks its messages without the attachment helper.
    expect(loopSide.files).not.toContain("models/attachments.ts");
    // The agent, loop and provider side: 10 files, 1,914 lines (11 files, 2,017 lines before the
    // attachments left the plain path and the model call's observer shrank; 17 files, 2,787 lines
    // before the default features left the path).
    expect(loopSide.files.length).toBeLessThanOrEqual(10);
    expect(loopSide.lines).toBeLessThanOrEqual(1_950);
    // The transport side: 7 files, 1,545 lines (12 files, 1,848 lines before the route, the
    // attempt's timers and the retry policy were folded into call.ts, transport.ts and failure.ts,
    // and the request's target into node-exchange.ts).
    expect(transportSide.files.length).toBeLessThanOrEqual(7);
    expect(transportSide.lines).toBeLessThanOrEqual(1_540);
  });
});
