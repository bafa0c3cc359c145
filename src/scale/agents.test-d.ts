import { tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { expectTypeOf, test } from "vitest";
import { z } from "zod";
import { defineWorker, type WorkerModule } from "./agents.js";

const lookup = tool({
  name: "lookup",
  description: "Looks a key up in the worker's database.",
  input: z.object({ key: z.string() }),
  context: z.object({ db: z.string() }),
  run: ({ key }, { context }) => `${context.db}:${key}`,
});

test("defineWorker takes factories of any context and output type, with no `any` in the way", () => {
  const module = defineWorker({
    agents: {
      withContext: () => ({ model: new ScriptedModel([]), tools: [lookup], context: { db: "main" } }),
      typedOutput: async () => ({ model: new ScriptedModel([]), output: z.object({ n: z.number() }) }),
    },
  });
  expectTypeOf(module).toEqualTypeOf<WorkerModule>();
});

test("a factory that does not make an agent config is refused", () => {
  // @ts-expect-error a factory must make an AgentConfig
  defineWorker({ agents: { bad: () => 42 } });
});
