/**
 * A long streamed answer, with events consumed and a trace written: once the step is over, none of
 * its deltas is kept, neither as event objects nor as the pieces the answer's text was built from.
 * Memory, not time: the garbage collector is run and the heap read.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Agent } from "glassloop";
import { OpenAIChatModel } from "glassloop/models";
import { TraceWriter } from "glassloop/trace";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const collect = async () => {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
};

let server: WireServer;
let dir: string;
beforeAll(async () => {
  server = await startWireServer();
  dir = mkdtempSync(join(tmpdir(), "glassloop-retention-"));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

// Ten characters per delta: kept as the pieces of the answer's text, they would cost over twice
// the text's size.
const DELTAS = 60_000;
const PIECE = "abcdefghij";
const event = (payload: object) => `data: ${JSON.stringify(payload)}\n\n`;

/** Runs the agent; with `writer`, also a weak reference to every text delta event. */
async function streamed(agent: Agent, writer?: TraceWriter) {
  const seen: WeakRef<object>[] = [];
  let output: unknown;
  for await (const e of agent.stream("go", writer ? { onEvent: writer.onEvent } : {})) {
    if (writer && e.type === "text_delta") seen.push(new WeakRef(e));
    if (e.type === "run_end") output = e.output;
  }
  writer?.close();
  return { seen, output };
}

it("keeps no delta of a streamed answer after the step, as an event or inside the answer's text", async () => {
  server.handler = () => ({
    headers: { "content-type": "text/event-stream" },
    drip: {
      head: event({ choices: [{ index: 0, delta: { role: "assistant", content: "" } }] }),
      // A hundred deltas per write, as a fast server's packets carry them.
      piece: event({ choices: [{ index: 0, delta: { content: PIECE } }] }).repeat(100),
      times: DELTAS / 100,
      tail: `${event({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}${event({ choices: [], usage: { prompt_tokens: 5, completion_tokens: DELTAS } })}data: [DONE]\n\n`,
    },
  });
  const model = new OpenAIChatModel({ model: "gpt-4o-mini", baseURL: `${server.url}/v1`, apiKey: "sk-test" });
  const agent = new Agent({ instructions: "Write.", model });

  // With a trace writing every delta: no event object outlives the run.
  const traced = await streamed(agent, new TraceWriter({ dir }));
  expect(traced.seen).toHaveLength(DELTAS);
  expect(traced.output).toBe(PIECE.repeat(DELTAS));
  await collect();
  expect(traced.seen.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);

  // Without one (nothing else reads the text whole): the answer held is its characters, flat.
  traced.seen.length = 0;
  await collect();
  const before = process.memoryUsage().heapUsed;
  const plain = await streamed(agent);
  await collect();
  const held = process.memoryUsage().heapUsed - before;
  expect(plain.output).toBe(PIECE.repeat(DELTAS));
  expect(held).toBeLessThan(1.1 * 1024 * 1024);
});
