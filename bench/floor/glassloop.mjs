// glassloop through its public API only, from the bundle `npm run build` makes (GLASSLOOP_ENTRY
// names it: the current build, or a saved one to compare against).
import { pathToFileURL } from "node:url";
import { PROMPT, SYSTEM, tools } from "./task.mjs";

const entry = process.env.GLASSLOOP_ENTRY;
if (!entry) throw new Error("set GLASSLOOP_ENTRY to glassloop's dist/index.mjs");
// zod first, then glassloop on top of it: the target counts glassloop's own part.
const t0 = performance.now();
const { z } = await import("zod");
const t1 = performance.now();
const { Agent, tool } = await import(pathToFileURL(entry).href);
/** Import time by part, ms: zod's, and glassloop's own once zod is loaded. */
export const importParts = { zodMs: t1 - t0, ownMs: performance.now() - t1 };

const input = z.object({ a: z.number().describe("First operand"), b: z.number().describe("Second operand") });

/** Returns the task runner. */
export default async function setup({ baseURL, stream }) {
  process.env.OPENAI_BASE_URL = baseURL;
  process.env.OPENAI_API_KEY = "sk-mock";
  const agentTools = Object.entries(tools).map(([name, t]) =>
    tool({ name, description: t.description, input, run: (args) => t.run(args) }),
  );
  const agent = new Agent({
    instructions: SYSTEM,
    model: "openai:gpt-4o-mini",
    tools: agentTools,
    limits: { maxSteps: 5 },
  });
  return async function runTask() {
    if (!stream) return (await agent.run(PROMPT)).output;
    let output;
    for await (const event of agent.stream(PROMPT)) if (event.type === "run_end") output = event.output;
    return output;
  };
}
