/**
 * A secret the model streams split across two deltas reaches none of the sinks that write deltas
 * one at a time: a trace's `text_delta` and `reasoning_delta` lines, the CLI's streamed answer,
 * scale-out's `run_events` rows. Split at every position, five kinds of secret; each sink still
 * writes one record per delta.
 */
import { readFileSync } from "node:fs";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Printer } from "../../src/cli/printer.js";
import { RunRenderer } from "../../src/cli/render.js";
import { Redactor } from "../../src/core/redact.js";
import type { AgentEvent } from "../../src/core/vocabulary/events.js";
import {
  Agent,
  type Model,
  type ModelObserver,
  type ModelRequest,
  type ModelResponse,
} from "../../src/index.js";
import { EventLog } from "../../src/scale/events.js";
import { TraceWriter } from "../../src/trace/writer.js";
import { batchPool } from "../helpers/batch-pool.js";
import { fragments, secretCases } from "../helpers/secret-shapes.js";
import { tempDir } from "../helpers/traced-run.js";

const LITERAL = "Zq9-hunter-of-keys-77";
const env = { APP_SECRET: LITERAL };

const CASES = secretCases(LITERAL, "a secret of the environment");

/** A model that streams its reasoning and its answer, each as the given pieces. */
class PiecesModel implements Model {
  readonly id = "pieces:test";
  constructor(private readonly pieces: readonly string[]) {}
  async generate(_request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    observer.onRequest({ body: {}, attempt: 1 });
    for (const text of this.pieces) observer.onDelta?.({ type: "reasoning", text });
    for (const text of this.pieces) observer.onDelta?.({ type: "text", text });
    return {
      text: this.pieces.join(""),
      toolCalls: [],
      usage: { inputTokens: 1, outputTokens: 1 },
      finishReason: "stop",
    };
  }
}

/** The events of one streamed run whose reasoning and answer are `pieces`. */
async function eventsOf(pieces: readonly string[]): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  const run = new Agent({ model: new PiecesModel(pieces) }).stream("go", { onEvent: (e) => events.push(e) });
  for await (const _ of run);
  return events;
}

/** Each split of `text` in two, every position. */
function splits(text: string): [string, string][] {
  return Array.from({ length: text.length - 1 }, (_, i) => [text.slice(0, i + 1), text.slice(i + 1)]);
}

const deltaTexts = (events: readonly Record<string, unknown>[], type: string) =>
  events.filter((e) => e.type === type).map((e) => e.text as string);

describe("a secret split across two streamed deltas", () => {
  for (const { name, secret, hidden } of CASES) {
    const text = `Here it is: ${secret} and the rest.`;

    it(`${name}: the trace's delta lines never hold it, one line per delta`, async () => {
      const dir = tempDir();
      const writer = new TraceWriter({ dir, redaction: { env } });
      for (const [a, b] of splits(text)) {
        const events = await eventsOf([a, b]);
        for (const event of events) writer.onEvent(event);
        const lines = readFileSync(writer.pathOf(events[0]?.runId as string), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        for (const type of ["text_delta", "reasoning_delta"]) {
          const pieces = deltaTexts(lines, type);
          expect(pieces, `${type}, split at ${a.length}`).toHaveLength(2);
          expect(pieces.join("")).toBe(new Redactor({ env }).text(text));
          for (const f of fragments(hidden))
            expect(pieces.join("|"), `split at ${a.length}`).not.toContain(f);
        }
      }
    });

    it(`${name}: the CLI's streamed answer never shows it`, async () => {
      for (const [a, b] of splits(text)) {
        const out: string[] = [];
        const stdout = new PassThrough();
        stdout.on("data", (d: Buffer) => out.push(String(d)));
        const printer = new Printer({
          stdout,
          stderr: new PassThrough(),
          stdin: new PassThrough(),
          env: { ...env, NO_COLOR: "1" },
          cwd: "/",
        });
        const renderer = new RunRenderer(printer, { showPrompt: false, quiet: false });
        for (const event of await eventsOf([a, b])) renderer.onEvent(event);
        renderer.close();
        const shown = out.join("");
        expect(shown, `split at ${a.length}`).toContain(new Redactor({ env }).text(text));
        for (const f of fragments(hidden)) expect(shown, `split at ${a.length}`).not.toContain(f);
      }
    });

    it(`${name}: scale-out's run_events rows never hold it, one row per delta`, async () => {
      for (const [a, b] of splits(text)) {
        const { pool, batches } = batchPool();
        const log = new EventLog(pool, "run-1", "worker-1", new Redactor({ env }));
        const events = await eventsOf([a, b]);
        for (const [i, event] of events.entries()) log.record(i, event);
        await log.flushed();
        const rows = batches.flatMap((b) => JSON.parse(b) as { event: Record<string, unknown> }[]);
        expect(rows).toHaveLength(events.length);
        const written = rows.map((r) => r.event);
        for (const type of ["text_delta", "reasoning_delta"]) {
          expect(deltaTexts(written, type)).toHaveLength(2);
          for (const f of fragments(hidden))
            expect(deltaTexts(written, type).join("|"), `split at ${a.length}`).not.toContain(f);
        }
      }
    });
  }
});
