import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Agent, type ModelRequest } from "glassloop";
import { LocalModel, probeLocalEngine } from "glassloop/models";
import { calculatorTool } from "glassloop/tools";
import { TINY_MODEL, writeTinyGguf } from "../test/helpers/tiny-gguf.js";
import { type BenchTable, round } from "./table.js";

const TOOLS = [
  {
    name: "calculator",
    description: "Evaluates an arithmetic expression.",
    parameters: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] },
  },
];

const AFTER_TOOL: ModelRequest["messages"] = [
  { role: "user", content: "What is 6 times 7?" },
  {
    role: "assistant",
    content: "",
    toolCalls: [{ id: "c1", name: "calculator", arguments: '{"expression": "6*7"}' }],
  },
  { role: "tool", toolCallId: "c1", toolName: "calculator", content: "42" },
];

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await fn();
  return [value, performance.now() - started];
}

/** Decode speed: ms per generated token, on a prompt already in the KV cache. */
async function msPerToken(model: LocalModel): Promise<number> {
  const request = (maxOutputTokens: number): ModelRequest => ({
    messages: AFTER_TOOL,
    tools: TOOLS,
    maxOutputTokens,
    signal: new AbortController().signal,
  });
  await model.generate(request(1), { onRequest() {} }); // warm the cache with the prompt
  const [response, ms] = await timed(() => model.generate(request(10), { onRequest() {} }));
  return ms / Math.max(1, response.usage.outputTokens);
}

/** The embedded model on the generated test GGUF: load, agent steps, decode speed by thread count. */
export async function localModelBench(): Promise<BenchTable[]> {
  const problem = await probeLocalEngine();
  if (problem) {
    return [{ title: "Local model (node-llama-cpp)", columns: ["skipped"], rows: [[problem.message]] }];
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), "glassloop-bench-local-"));
  try {
    const file = await writeTinyGguf(dir);
    const rows: (string | number)[][] = [];

    for (const chatWrapper of ["auto", "jinjaTemplate"]) {
      const model = new LocalModel(file, { threads: 1, chatWrapper });
      const [, ms] = await timed(() => model.load());
      rows.push([`load (chatWrapper ${chatWrapper})`, round(ms, 0)]);
      await model.dispose();
    }

    const model = new LocalModel(file, { threads: 1, chatWrapper: "jinjaTemplate" });
    await model.load();
    const agent = new Agent({ instructions: "Use the calculator.", model, tools: [calculatorTool()] });
    const [result, runMs] = await timed(() => agent.run("What is 6 times 7?"));
    if (result.output !== TINY_MODEL.answer) throw new Error(`unexpected answer ${result.output}`);
    const { inputTokens, cachedInputTokens, steps } = result.usage;
    rows.push([
      `agent run: ${steps.length} steps, ${inputTokens} prompt tokens (${cachedInputTokens} from the KV cache)`,
      round(runMs, 0),
    ]);
    await model.dispose();

    const speeds: (string | number)[][] = [];
    for (const threads of [...new Set([1, os.availableParallelism()])]) {
      const m = new LocalModel(file, { threads, chatWrapper: "jinjaTemplate" });
      await m.load();
      speeds.push([threads, round(await msPerToken(m), 2)]);
      await m.dispose();
    }
    return [
      {
        title: "Local model: load and an agent run (tiny GGUF, 1 thread)",
        columns: ["what", "ms"],
        rows,
        notes: [
          "The generated 1.8 MB test model: timings show glassloop's and node-llama-cpp's overhead, not a real model's speed.",
          'chatWrapper "auto" compares the GGUF template with node-llama-cpp\'s specialized wrappers at load.',
        ],
      },
      {
        title: "Local model: decode speed by thread count",
        columns: ["threads", "ms/token"],
        rows: speeds,
        notes: ["llama.cpp threads spin-wait: more threads than idle cores is far slower, not faster."],
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
