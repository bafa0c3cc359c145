import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { Agent, type AgentEvent, ToolError, tool } from "glassloop";
import { otelListener } from "glassloop/otel";
import { ScriptedModel } from "glassloop/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { calculatorScript, calculatorTools } from "../helpers/traced-run.js";

function setup() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer("test") };
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const byName = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);

describe("OpenTelemetry spans", () => {
  it("nests model and tool spans in step spans in the run span, with GenAI attributes", async () => {
    const { exporter, tracer } = setup();
    const agent = new Agent({
      name: "calc",
      instructions: "Perform arithmetic with the tools.",
      model: new ScriptedModel(calculatorScript, { id: "openai:gpt-4o-mini" }),
      tools: calculatorTools(),
    });
    await agent.run("Add 200 and 10, then multiply the result by 2.", {
      onEvent: otelListener({ tracer, agentName: "calc" }),
    });
    const spans = exporter.getFinishedSpans();
    const [run] = byName(spans, "invoke_agent calc");
    expect(run).toBeDefined();
    expect(parentOf(run!)).toBeUndefined();
    expect(run!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "calc",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": 480,
      "gen_ai.usage.output_tokens": 38,
      "glassloop.run.status": "ok",
    });
    const steps = spans.filter((s) => s.name.startsWith("step "));
    expect(steps.map((s) => s.name).sort()).toEqual(["step 1", "step 2", "step 3"]);
    for (const s of steps) expect(parentOf(s)).toBe(run!.spanContext().spanId);
    const stepId = (n: number) => steps.find((s) => s.name === `step ${n}`)!.spanContext().spanId;

    const chats = byName(spans, "chat gpt-4o-mini");
    expect(chats).toHaveLength(3);
    expect(chats.map(parentOf).sort()).toEqual([stepId(1), stepId(2), stepId(3)].sort());
    const chat1 = chats.find((s) => parentOf(s) === stepId(1))!;
    expect(chat1.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 18,
      "gen_ai.response.finish_reasons": ["tool_calls"],
    });

    const [add] = byName(spans, "execute_tool add");
    expect(parentOf(add!)).toBe(stepId(1));
    expect(add!.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "add",
      "gen_ai.tool.call.id": "call_1",
      "glassloop.tool.status": "ok",
    });
    expect(parentOf(byName(spans, "execute_tool multiply")[0]!)).toBe(stepId(2));
    expect(spans).toHaveLength(1 + 3 + 3 + 2);
    // Span times are the run's: each child lies within its parent.
    for (const s of [...steps, ...chats]) {
      expect(s.startTime[0] * 1e9 + s.startTime[1]).toBeGreaterThanOrEqual(
        run!.startTime[0] * 1e9 + run!.startTime[1],
      );
      expect(s.endTime[0] * 1e9 + s.endTime[1]).toBeLessThanOrEqual(run!.endTime[0] * 1e9 + run!.endTime[1]);
    }
  });

  it("records no message content unless asked, and redacts it when asked", async () => {
    const secret = "sk-test-SECRETSECRETSECRET123";
    const run = async (recordContent: boolean) => {
      const { exporter, tracer } = setup();
      const agent = new Agent({
        instructions: "Be careful.",
        model: new ScriptedModel([
          { toolCalls: [{ name: "echo", args: { text: `my key is ${secret}` } }] },
          { text: "done" },
        ]),
        tools: [
          tool({
            name: "echo",
            description: "Echoes.",
            input: z.object({ text: z.string() }),
            run: ({ text }) => text,
          }),
        ],
      });
      await agent.run("Tell me about the weather in Paris", {
        onEvent: otelListener({ tracer, recordContent }),
      });
      return exporter.getFinishedSpans();
    };
    const plain = JSON.stringify((await run(false)).map((s) => s.attributes));
    expect(plain).not.toContain("Paris");
    expect(plain).not.toContain("gen_ai.input.messages");
    expect(plain).not.toContain("gen_ai.tool.call.arguments");
    const spans = await run(true);
    const withContent = JSON.stringify(spans.map((s) => s.attributes));
    expect(withContent).toContain("Paris");
    expect(withContent).not.toContain(secret);
    const echo = byName(spans, "execute_tool echo")[0]!;
    expect(echo.attributes["gen_ai.tool.call.arguments"]).toBe('{"text":"my key is [REDACTED]"}');
    expect(echo.attributes["gen_ai.tool.call.result"]).toBe("my key is [REDACTED]");
    const chat = spans.find(
      (s) => s.name.startsWith("chat") && String(s.attributes["gen_ai.output.messages"]).includes("done"),
    );
    expect(chat).toBeDefined();
  });

  it("with content recorded, a PDF's and an image's bytes are a hash and size in the spans, never whole", async () => {
    const pdf = Buffer.from(`%PDF-1.7\n${"q3 figures ".repeat(200)}`).toString("base64");
    const png = Buffer.from("\x89PNG\r\n\x1a\n-pixels-".repeat(50), "latin1").toString("base64");
    const { exporter, tracer } = setup();
    const agent = new Agent({ model: new ScriptedModel([{ text: "read it" }]) });
    await agent.run("Summarize the report.", {
      files: [{ type: "file", mediaType: "application/pdf", data: pdf, filename: "q3.pdf" }],
      images: [{ type: "image", mediaType: "image/png", data: png }],
      onEvent: otelListener({ tracer, recordContent: true }),
    });
    const attributes = JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes));
    expect(attributes).toContain("Summarize the report.");
    expect(attributes).toMatch(/\[file sha256:[0-9a-f]{16}, \d+ bytes\]/);
    expect(attributes).toMatch(/\[image sha256:[0-9a-f]{16}, \d+ bytes\]/);
    expect(attributes).not.toContain(pdf.slice(0, 64));
    expect(attributes).not.toContain(png.slice(0, 64));
  });

  it("marks failed tools and failed runs as errors with error.type", async () => {
    const { exporter, tracer } = setup();
    const agent = new Agent({
      model: new ScriptedModel([{ toolCalls: [{ name: "fail", args: {} }] }, { error: "provider down" }]),
      tools: [
        tool({
          name: "fail",
          description: "Fails.",
          input: z.object({}),
          run: () => {
            throw new ToolError("nope");
          },
        }),
      ],
    });
    await agent.run("x", { onEvent: otelListener({ tracer }) }).catch(() => {});
    const spans = exporter.getFinishedSpans();
    const failTool = byName(spans, "execute_tool fail")[0]!;
    expect(failTool.status.code).toBe(2);
    expect(failTool.attributes["error.type"]).toBe("error");
    // An agent without a name is called "agent".
    const run = byName(spans, "invoke_agent agent")[0]!;
    expect(run.status.code).toBe(2);
    expect(run.attributes["error.type"]).toBe("model_error");
    expect(run.attributes["glassloop.run.status"]).toBe("failed");
    const failedChat = spans.filter((s) => s.name.startsWith("chat")).find((s) => s.status.code === 2);
    expect(failedChat).toBeDefined();
    // Every span ended: nothing left open after a failure.
    expect(spans).toHaveLength(1 + 2 + 2 + 1);
  });

  it("nests a sub-agent's run under the tool call that ran it", async () => {
    const { agentAsTool } = await import("glassloop/multi");
    const { exporter, tracer } = setup();
    const inner = new Agent({
      name: "inner",
      model: new ScriptedModel([{ text: "inner answer" }], { id: "scripted:inner" }),
    });
    const outer = new Agent({
      model: new ScriptedModel([
        { toolCalls: [{ name: "ask_inner", args: { input: "q" } }] },
        { text: "ok" },
      ]),
      tools: [agentAsTool(inner, { name: "ask_inner", description: "Asks the inner agent." })],
    });
    await outer.run("go", { onEvent: otelListener({ tracer }) });
    const spans = exporter.getFinishedSpans();
    const toolSpan = byName(spans, "execute_tool ask_inner")[0]!;
    const innerRun = spans.find(
      (s) => s.name === "invoke_agent inner" && s.attributes["gen_ai.request.model"] === "inner",
    );
    expect(innerRun).toBeDefined();
    expect(parentOf(innerRun!)).toBe(toolSpan.spanContext().spanId);
  });

  it("names each run's span after its own agent's name, nested runs included", async () => {
    const { exporter, tracer } = setup();
    const makeWriter = () => {
      const researcher = new Agent({
        name: "researcher",
        model: new ScriptedModel([{ text: "facts" }], { id: "scripted:inner" }),
      });
      return new Agent({
        name: "writer",
        model: new ScriptedModel([
          { toolCalls: [{ name: "research", args: { input: "q" } }] },
          { text: "ok" },
        ]),
        tools: [researcher.asTool({ name: "research", description: "Finds facts." })],
      });
    };
    const writer = makeWriter();
    const events: AgentEvent[] = [];
    // The listener's agentName names the top-level run only; a nested run keeps its own name.
    const listener = otelListener({ tracer, agentName: "writer-service" });
    await writer.run("go", {
      onEvent: (e) => {
        events.push(e);
        listener(e);
      },
    });
    expect(events[0]).toMatchObject({ type: "run_start", agent: "writer" });
    const nestedStart = events.find((e) => e.type === "nested" && e.event.type === "run_start");
    expect(nestedStart).toMatchObject({ event: { type: "run_start", agent: "researcher" } });
    const spans = exporter.getFinishedSpans();
    expect(byName(spans, "invoke_agent writer-service")[0]?.attributes["gen_ai.agent.name"]).toBe(
      "writer-service",
    );
    expect(byName(spans, "invoke_agent researcher")[0]?.attributes["gen_ai.agent.name"]).toBe("researcher");
    expect(spans.filter((s) => s.name === "invoke_agent writer-service")).toHaveLength(1);

    // Without agentName, the top-level span is named after the agent too.
    const second = setup();
    await makeWriter().run("go", { onEvent: otelListener({ tracer: second.tracer }) });
    const names = second.exporter.getFinishedSpans().filter((s) => s.name.startsWith("invoke_agent"));
    expect(names.map((s) => [s.name, s.attributes["gen_ai.agent.name"]]).sort()).toEqual([
      ["invoke_agent researcher", "researcher"],
      ["invoke_agent writer", "writer"],
    ]);
  });

  it("puts guardrail verdicts on the spans they judged: a tool guardrail on its execute_tool span, an output one on the step", async () => {
    const transfer = tool({
      name: "transfer",
      description: "Sends money.",
      input: z.object({ amount: z.number() }),
      run: () => "sent",
    });
    const run = async (recordContent: boolean) => {
      const { exporter, tracer } = setup();
      const model = new ScriptedModel([
        { toolCalls: [{ name: "transfer", args: { amount: 500 }, id: "c1" }] },
        { text: "Not sent." },
      ]);
      const agent = new Agent({
        model,
        tools: [transfer],
        guardrails: {
          tools: [
            {
              name: "cap",
              tools: ["transfer"],
              before: ({ args }) =>
                (args as { amount: number }).amount > 100
                  ? { action: "reject", message: "At most 100, sk-test-0123456789abcdefghij." }
                  : { action: "allow" },
            },
          ],
          output: [{ name: "polite", check: () => ({ action: "allow" }) }],
        },
      });
      await agent.run("send 500", { onEvent: otelListener({ tracer, recordContent }) });
      return exporter.getFinishedSpans();
    };
    const spans = await run(false);
    const call = byName(spans, "execute_tool transfer")[0];
    expect(call?.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        "guardrail",
        {
          "glassloop.guardrail.name": "cap",
          "glassloop.guardrail.stage": "tool_before",
          "glassloop.guardrail.action": "reject",
          "glassloop.guardrail.duration_ms": expect.any(Number),
          "gen_ai.tool.call.id": "c1",
          "gen_ai.tool.name": "transfer",
        },
      ],
    ]);
    const output = spans.flatMap((s) =>
      s.events.filter((e) => e.attributes?.["glassloop.guardrail.stage"] === "output"),
    );
    expect(output).toHaveLength(1);
    expect(output[0]?.attributes).toMatchObject({
      "glassloop.guardrail.name": "polite",
      "glassloop.guardrail.action": "allow",
    });
    // What the model was told is content: only with recordContent, and redacted there.
    const recorded = byName(await run(true), "execute_tool transfer")[0]?.events[0]?.attributes?.[
      "glassloop.guardrail.message"
    ];
    expect(recorded).toMatch(/^At most 100, /);
    expect(recorded).not.toContain("sk-test-0123456789abcdefghij");
  });
});
