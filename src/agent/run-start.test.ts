import { tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Persistence } from "../features/durability/persistence.js";
import type { RunState } from "../loop/hooks.js";
import { UsageMeter } from "../loop/usage.js";
import type { AgentTool } from "../tools/tool.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import type { AgentConfig } from "./agent-config.js";
import { attachFeatures, startRun } from "./run-start.js";

const echo = tool({ name: "echo", description: "Echoes.", input: z.object({}), run: () => "echo" });

/** The hook methods a run gets from `config`, attached the way the agent attaches them. */
async function hooksOf(
  tools: AgentTool<undefined>[],
  config: Pick<AgentConfig<unknown, unknown>, "loopGuard"> = {},
): Promise<string[]> {
  const { state, finish } = startRun<undefined>({
    runId: "run_features",
    model: new ScriptedModel([]),
    registry: ToolRegistry.from(tools) as ToolRegistry<undefined, unknown, boolean>,
    context: undefined,
    environment: undefined,
    limits: {},
    meter: new UsageMeter(undefined),
    messages: [{ role: "user", content: "go" }],
    signal: undefined,
    listener: undefined,
  });
  const release = await attachFeatures(state as RunState<unknown>, new Persistence({}, "agent"), config, {
    input: "go",
    rebuild: (history) => [...history],
    tools: { names: tools.map((t) => t.name) },
  });
  release();
  finish();
  return Object.keys(state.hooks).sort();
}

describe("attachFeatures", () => {
  it("gives a default run (no tools, store, memory or recall) only the compaction after a context overflow", async () => {
    expect(await hooksOf([])).toEqual(["modelCall"]);
  });

  it("attaches the loop guard once the run can call a tool, and not when it is turned off", async () => {
    expect(await hooksOf([echo])).toEqual(["afterTurn", "beforeConcurrentCalls", "modelCall"]);
    expect(await hooksOf([echo], { loopGuard: false })).toEqual(["modelCall"]);
  });
});
