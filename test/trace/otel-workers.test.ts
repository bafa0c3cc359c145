import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { Agent, type AgentEvent } from "glassloop";
import { otelListener } from "glassloop/otel";
import { ScriptedModel } from "glassloop/testing";
import { readTraceEvents } from "glassloop/trace";
import { describe, expect, it } from "vitest";
import { failedOverTrace } from "../helpers/distributed-trace.js";
import { tempDir, tracedCalculatorRun } from "../helpers/traced-run.js";

function spansOf(events: readonly AgentEvent[]): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const listener = otelListener({ tracer: provider.getTracer("test") });
  for (const event of events) listener(event);
  return exporter.getFinishedSpans();
}

const one = (spans: ReadableSpan[], name: string, nth = 0) => {
  const span = spans.filter((s) => s.name === name)[nth];
  if (!span) throw new Error(`no span ${name} #${nth} in ${spans.map((s) => s.name).join(", ")}`);
  return span;
};

describe("OpenTelemetry spans of a distributed run", () => {
  it("put the worker that ran each span on it, and both workers on the step and run that failed over", async () => {
    const { file } = await failedOverTrace();
    const spans = spansOf(readTraceEvents(file));
    const run = one(spans, "invoke_agent agent");
    expect(run.attributes).toMatchObject({ "glassloop.worker": "w2", "glassloop.workers": ["w1", "w2"] });
    expect(one(spans, "step 1").attributes["glassloop.worker"]).toBe("w1");
    expect(one(spans, "step 1").attributes["glassloop.workers"]).toBeUndefined();
    expect(one(spans, "step 2").attributes).toMatchObject({
      "glassloop.worker": "w2",
      "glassloop.workers": ["w1", "w2"],
    });
    expect(one(spans, "step 3").attributes["glassloop.worker"]).toBe("w2");
    // w1 had the model's answer of step 2 before it died; w2 ran the call.
    const chats = spans.filter((s) => s.name.startsWith("chat "));
    expect(chats.map((s) => s.attributes["glassloop.worker"])).toEqual(["w1", "w1", "w2"]);
    expect(one(spans, "execute_tool add").attributes["glassloop.worker"]).toBe("w1");
    expect(one(spans, "execute_tool multiply").attributes["glassloop.worker"]).toBe("w2");
  });

  it("gives a sub-agent's spans the worker of the events that carry them", async () => {
    const events: AgentEvent[] = [];
    const researcher = new Agent({ name: "researcher", model: new ScriptedModel([{ text: "facts" }]) });
    await new Agent({
      name: "writer",
      model: new ScriptedModel([
        { toolCalls: [{ id: "r1", name: "research", args: { input: "q" } }] },
        { text: "ok" },
      ]),
      tools: [researcher.asTool({ name: "research", description: "Finds facts." })],
    }).run("Write", { onEvent: (e) => events.push(e) });
    const spans = spansOf(events.map((e) => ({ ...e, worker: "w9" })));
    expect(one(spans, "invoke_agent researcher").attributes["glassloop.worker"]).toBe("w9");
    for (const span of spans) expect(span.attributes["glassloop.worker"], span.name).toBe("w9");
  });

  it("adds no worker attribute to the spans of a run on one process", async () => {
    const { file } = await tracedCalculatorRun(tempDir());
    for (const span of spansOf(readTraceEvents(file))) {
      expect(span.attributes["glassloop.worker"]).toBeUndefined();
      expect(span.attributes["glassloop.workers"]).toBeUndefined();
    }
  });
});
