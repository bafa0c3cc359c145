/**
 * Makes the recordings `glassloop demo` replays: `npx tsx test/helpers/record-demos.ts`.
 *
 * Each demo example runs through the real agent loop, real tools and glassloop's OpenAI provider,
 * over HTTP, against a loopback server that answers with the model answers as first printed
 * (recorded non-streaming, as those models were called). The trace writer records the run as
 * `--trace` would. No usage was printed, so the recordings hold zero tokens.
 */
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SCENARIOS } from "../../src/cli/demo/scenarios.js";
import { presetModel } from "../../src/providers/presets.js";
import { TraceWriter } from "../../src/trace/writer.js";
import { chatJson } from "./openai-replies.js";
import { startWireServer } from "./wire-server.js";

/** Records every scenario into `dir` (default: the repository's recordings/). */
export async function recordDemos(
  dir = fileURLToPath(new URL("../../recordings/", import.meta.url)),
): Promise<string[]> {
  const files: string[] = [];
  for (const scenario of SCENARIOS) {
    const server = await startWireServer();
    try {
      const modelName = scenario.recordedModel.slice(scenario.recordedModel.indexOf(":") + 1);
      server.enqueue(...scenario.answers.map((answer, i) => chatJson({ ...answer, model: modelName }, i)));
      const model = presetModel("openai", modelName, {
        baseURL: `${server.url}/v1`,
        apiKey: "not-a-real-key",
        env: {},
        ...(scenario.parallelToolCalls !== undefined && { parallelToolCalls: scenario.parallelToolCalls }),
      });
      const file = `${dir}${scenario.name}.jsonl`;
      rmSync(file, { force: true });
      const writer = new TraceWriter({ file });
      await scenario.agent(model).run(scenario.input, { onEvent: writer.onEvent });
      if (server.pending !== 0 || server.unexpected !== 0) {
        throw new Error(
          `${scenario.name}: the run used ${server.requests.length} of ${scenario.answers.length} answers`,
        );
      }
      files.push(file);
    } finally {
      await server.close();
    }
  }
  return files;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const file of await recordDemos()) console.log(`recorded ${file}`);
}
