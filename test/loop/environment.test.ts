import { Agent, type AgentTool, type EnvironmentOptions, ToolError, tool } from "glassloop";
import { ScriptedModel, type ScriptedToolCall } from "glassloop/testing";
import { ENVIRONMENT_DEFAULTS } from "glassloop/tools";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { capture, expectEveryCallAnswered, ofType } from "../helpers/core.js";

const convertRun = vi.fn(({ celsius }: { celsius: number }) => ({ fahrenheit: (celsius * 9) / 5 + 32 }));
const convert = tool({
  name: "convert",
  description: "Celsius to Fahrenheit.",
  input: z.object({ celsius: z.number().min(-100).max(100) }),
  run: convertRun,
});

afterEach(() => {
  convertRun.mockClear();
  vi.useRealTimers();
});

/** One tool call, then a final text answer; returns what the model was told about the call. */
async function callOnce(
  call: ScriptedToolCall,
  tools: readonly AgentTool<undefined>[],
  environment?: EnvironmentOptions,
) {
  const model = new ScriptedModel([{ toolCalls: [{ id: "c1", ...call }] }, { text: "done" }]);
  const agent = makeAgent(tools, model, environment);
  const captured = await capture((onEvent) => agent.run("go", { onEvent }));
  expect(captured.error).toBeUndefined();
  const messages = captured.result?.messages ?? [];
  expectEveryCallAnswered(messages);
  const toolMessage = messages.find((m) => m.role === "tool");
  if (toolMessage?.role !== "tool") throw new Error("no tool message");
  const event = ofType(captured.events, "tool_result")[0];
  // What the model saw next is exactly what the transcript holds.
  expect(model.requests[1]?.messages.at(-1)).toEqual(toolMessage);
  return { toolMessage, event: event!, model, events: captured.events };
}

function makeAgent(
  tools: readonly AgentTool<undefined>[],
  model: ScriptedModel,
  environment?: EnvironmentOptions,
) {
  return new Agent({ model, tools, ...(environment && { environment }) });
}

describe("the environment refuses bad calls as feedback, never running the tool", () => {
  it("answers an unknown tool with the list of real ones", async () => {
    const { toolMessage, event } = await callOnce({ name: "get_stock", args: {} }, [convert]);
    expect(toolMessage).toEqual({
      role: "tool",
      toolCallId: "c1",
      toolName: "get_stock",
      content: 'Unknown tool "get_stock". Available tools: convert.',
      isError: true,
    });
    expect(event.status).toBe("invalid");
    expect(convertRun).not.toHaveBeenCalled();
  });

  it("answers arguments that are not JSON", async () => {
    const { toolMessage, event } = await callOnce({ name: "convert", args: '{"celsius": 10' }, [convert]);
    expect(toolMessage.content).toMatch(
      /^Arguments for convert are not valid JSON \(.+\)\. Send one JSON object\.$/,
    );
    expect(toolMessage.isError).toBe(true);
    expect(event.status).toBe("invalid");
    expect(convertRun).not.toHaveBeenCalled();
  });

  it("answers arguments over 10,000 characters, and accepts exactly 10,000", async () => {
    const echo = vi.fn(({ text }: { text: string }) => text.length);
    const echoTool = tool({
      name: "echo",
      description: "d",
      input: z.object({ text: z.string() }),
      run: echo,
    });
    const wrap = (n: number) => `{"text":"${"x".repeat(n - 11)}"}`;
    expect(wrap(10_000)).toHaveLength(10_000);

    const over = await callOnce({ name: "echo", args: wrap(10_001) }, [echoTool]);
    expect(over.toolMessage.content).toBe(
      "Arguments for echo are 10001 characters; the limit is 10000. Send shorter arguments.",
    );
    expect(echo).not.toHaveBeenCalled();

    const at = await callOnce({ name: "echo", args: wrap(10_000) }, [echoTool]);
    expect(at.toolMessage.content).toBe("9989");
    expect(echo).toHaveBeenCalledTimes(1);
  });

  it("takes the argument size limit from the agent's environment options", async () => {
    const { toolMessage } = await callOnce({ name: "convert", args: { celsius: 12.5 } }, [convert], {
      maxArgumentChars: 10,
    });
    expect(toolMessage.content).toBe(
      "Arguments for convert are 16 characters; the limit is 10. Send shorter arguments.",
    );
    expect(convertRun).not.toHaveBeenCalled();
  });

  it("answers a schema violation with zod's issues and their paths", async () => {
    const { toolMessage, event } = await callOnce({ name: "convert", args: { celsius: 10000 } }, [convert]);
    expect(toolMessage.content).toBe(
      "Invalid arguments for convert: celsius: Too big: expected number to be <=100",
    );
    expect(event.status).toBe("invalid");
    expect(convertRun).not.toHaveBeenCalled();
  });

  it("lists every issue, nested paths joined with dots", async () => {
    const book = tool({
      name: "book",
      description: "d",
      input: z.object({ guest: z.object({ name: z.string(), age: z.number().int() }), nights: z.number() }),
      run: () => "booked",
    });
    const { toolMessage } = await callOnce(
      { name: "book", args: { guest: { name: 7, age: 1.5 }, extra: true } },
      [book],
    );
    expect(toolMessage.content).toBe(
      "Invalid arguments for book: guest.name: Invalid input: expected string, received number; " +
        "guest.age: Invalid input: expected int, received number; " +
        "nights: Invalid input: expected number, received undefined",
    );
  });

  it("treats empty arguments as {} (providers send them for argument-less tools)", async () => {
    const now = tool({ name: "now", description: "d", input: z.object({}), run: () => "noon" });
    const { toolMessage } = await callOnce({ name: "now", args: "" }, [now]);
    expect(toolMessage.content).toBe("noon");
  });
});

describe("failures inside a tool", () => {
  it("sends a ToolError's message to the model verbatim", async () => {
    const weather = tool({
      name: "weather",
      description: "d",
      input: z.object({ city: z.string() }),
      run: ({ city }) => {
        throw new ToolError(`Only Beijing and Shanghai are supported, not ${city}.`);
      },
    });
    const { toolMessage, event } = await callOnce({ name: "weather", args: { city: "Paris" } }, [weather]);
    expect(toolMessage.content).toBe("Only Beijing and Shanghai are supported, not Paris.");
    expect(toolMessage.isError).toBe(true);
    expect(event.status).toBe("error");
    expect(event.errorDetail).toBeUndefined();
  });

  it("hides any other exception behind a generic message; details only in the event", async () => {
    const leaky = tool({
      name: "read_config",
      description: "d",
      input: z.object({}),
      run: async () => {
        throw new Error("ENOENT: no such file, open '/home/alice/.secrets/sk-live-12345.json'");
      },
    });
    const { toolMessage, event, model, events } = await callOnce({ name: "read_config", args: {} }, [leaky]);
    expect(toolMessage.content).toBe("Tool read_config failed with an internal error.");
    expect(event.status).toBe("error");
    expect(event.errorDetail).toContain("/home/alice/.secrets/sk-live-12345.json");
    expect(event.errorDetail).toMatch(/\n\s+at /); // the stack, for the trace
    const seenByModel = JSON.stringify(model.requests);
    expect(seenByModel).not.toContain("sk-live");
    expect(seenByModel).not.toContain("/home/alice");
    expect(seenByModel).not.toMatch(/\bat .*:\d+:\d+/);
    // Only the tool_result event carries the detail.
    const carriers = events.filter((e) => JSON.stringify(e).includes("sk-live"));
    expect(carriers.map((e) => e.type)).toEqual(["tool_result"]);
  });

  it("hides a synchronous throw and a thrown non-Error the same way", async () => {
    const sync = tool({
      name: "sync",
      description: "d",
      input: z.object({}),
      run: () => {
        throw "raw string with /etc/passwd";
      },
    });
    const { toolMessage, event } = await callOnce({ name: "sync", args: {} }, [sync]);
    expect(toolMessage.content).toBe("Tool sync failed with an internal error.");
    expect(event.errorDetail).toBe("raw string with /etc/passwd");
  });
});

describe("tool timeouts", () => {
  it("defaults to 30 s", () => {
    expect(ENVIRONMENT_DEFAULTS.toolTimeoutMs).toBe(30_000);
  });

  it("times a hanging tool out after 30 s by default and fires its signal", async () => {
    vi.useFakeTimers();
    let seen: AbortSignal | undefined;
    const hang = tool({
      name: "hang",
      description: "d",
      input: z.object({}),
      run: (_args, { signal }) => {
        seen = signal;
        return new Promise<never>(() => {});
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ id: "c1", name: "hang" }] }, { text: "gave up" }]);
    const running = new Agent({ model, tools: [hang] }).run("go");
    await vi.advanceTimersByTimeAsync(29_999);
    expect(seen?.aborted).toBe(false);
    expect(model.requests).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const result = await running;
    expect(seen?.aborted).toBe(true);
    expect(result.messages[2]).toEqual({
      role: "tool",
      toolCallId: "c1",
      toolName: "hang",
      content: "Tool hang timed out after 30000 ms.",
      isError: true,
    });
    expect(result.output).toBe("gave up");
  });

  it("takes a per-agent timeout and a per-tool one, the tool's winning", async () => {
    const signals: Record<string, AbortSignal> = {};
    const hanging = (name: string, timeoutMs?: number) =>
      tool({
        name,
        description: "d",
        input: z.object({}),
        ...(timeoutMs !== undefined && { timeoutMs }),
        run: (_args, { signal }) => {
          signals[name] = signal;
          return new Promise<never>(() => {});
        },
      });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "a", name: "agent_timeout" },
          { id: "b", name: "own_timeout" },
        ],
      },
      { text: "done" },
    ]);
    const agent = new Agent({
      model,
      tools: [hanging("agent_timeout"), hanging("own_timeout", 10)],
      environment: { toolTimeoutMs: 40 },
    });
    const captured = await capture((onEvent) => agent.run("go", { onEvent }));
    const results = ofType(captured.events, "tool_result");
    expect(results.map((r) => [r.toolName, r.status, r.content])).toEqual([
      ["agent_timeout", "timeout", "Tool agent_timeout timed out after 40 ms."],
      ["own_timeout", "timeout", "Tool own_timeout timed out after 10 ms."],
    ]);
    expect(signals.agent_timeout?.aborted).toBe(true);
    expect(signals.own_timeout?.aborted).toBe(true);
    expect(results[1]!.durationMs).toBeLessThan(results[0]!.durationMs);
  });
});

describe("results", () => {
  it("truncates a result over 20,000 characters with a marker saying how much was cut", async () => {
    const big = tool({ name: "big", description: "d", input: z.object({}), run: () => "y".repeat(25_000) });
    const { toolMessage } = await callOnce({ name: "big", args: {} }, [big]);
    expect(toolMessage.content).toBe(`${"y".repeat(20_000)}\n[truncated: 5,000 of 25,000 characters cut]`);
  });

  it("leaves a result of exactly the limit alone", async () => {
    const exact = tool({
      name: "exact",
      description: "d",
      input: z.object({}),
      run: () => "z".repeat(20_000),
    });
    const { toolMessage } = await callOnce({ name: "exact", args: {} }, [exact]);
    expect(toolMessage.content).toBe("z".repeat(20_000));
  });

  it("takes the result limit per agent and per tool", async () => {
    const perAgent = tool({ name: "a", description: "d", input: z.object({}), run: () => "abcdefghij" });
    const agentLimited = await callOnce({ name: "a", args: {} }, [perAgent], { maxResultChars: 4 });
    expect(agentLimited.toolMessage.content).toBe("abcd\n[truncated: 6 of 10 characters cut]");

    const perTool = tool({
      name: "b",
      description: "d",
      input: z.object({}),
      maxResultChars: 3,
      run: () => "abcdefghij",
    });
    const toolLimited = await callOnce({ name: "b", args: {} }, [perTool], { maxResultChars: 4 });
    expect(toolLimited.toolMessage.content).toBe("abc\n[truncated: 7 of 10 characters cut]");
  });

  it.each([
    ["a string as is", "plain text", "plain text"],
    ["a number as JSON", 42, "42"],
    ["an object as JSON", { fahrenheit: 71.6, demo: true }, '{"fahrenheit":71.6,"demo":true}'],
    ["an array as JSON", [1, "two"], '[1,"two"]'],
    ["null", null, "null"],
    ["undefined as null", undefined, "null"],
    ["a boolean", false, "false"],
  ])("serializes %s", async (_label, value, expected) => {
    const t = tool({ name: "value", description: "d", input: z.object({}), run: async () => value });
    const { toolMessage } = await callOnce({ name: "value", args: {} }, [t]);
    expect(toolMessage.content).toBe(expected);
    expect(toolMessage.isError).toBeUndefined();
  });

  it("turns a result JSON cannot hold into a generic error, not a crash", async () => {
    const circular: { self?: unknown } = {};
    circular.self = circular;
    const bad = tool({ name: "bad", description: "d", input: z.object({}), run: () => circular });
    const { toolMessage, event } = await callOnce({ name: "bad", args: {} }, [bad]);
    expect(toolMessage.content).toBe("Tool bad failed with an internal error.");
    expect(event.errorDetail).toMatch(/circular/i);
  });

  it("gives the tool its parsed arguments (zod output, defaults applied) and its call id", async () => {
    const seen: unknown[] = [];
    const t = tool({
      name: "t",
      description: "d",
      input: z.object({ n: z.coerce.number(), unit: z.string().default("c") }),
      run: (args, { toolCallId, messages }) => {
        seen.push(args, toolCallId, messages.length);
        return "ok";
      },
    });
    await callOnce({ name: "t", args: { n: "5" } }, [t]);
    expect(seen).toEqual([{ n: 5, unit: "c" }, "c1", 2]);
  });

  it("hands the tool options that behave as a plain object: spread, listed and read alike", async () => {
    const seen: Record<string, unknown>[] = [];
    const t = tool({
      name: "t",
      description: "d",
      input: z.object({}),
      run: (_args, options) => {
        const copy = { ...options };
        seen.push({
          keys: Object.keys(options).sort(),
          copiedSignal: copy.signal instanceof AbortSignal && !copy.signal.aborted,
          // biome-ignore lint/suspicious/noSelfCompare: two reads of the lazy accessor must give one signal
          sameSignal: options.signal === options.signal,
          usage: copy.usage.requests,
          remaining: copy.remaining.toolCalls,
          id: copy.toolCallId,
        });
        return "ok";
      },
    });
    const model = new ScriptedModel([{ toolCalls: [{ id: "c1", name: "t", args: {} }] }, { text: "done" }]);
    await new Agent({ model, tools: [t], limits: { maxToolCalls: 4 } }).run("go");
    expect(seen).toEqual([
      {
        keys: [
          "addUsage",
          "answered",
          "context",
          "forward",
          "messages",
          "remaining",
          "signal",
          "toolCallId",
          "usage",
        ],
        copiedSignal: true,
        sameSignal: true,
        usage: 1,
        remaining: 3,
        id: "c1",
      },
    ]);
  });
});

describe("options are validated at construction", () => {
  it.each<[EnvironmentOptions, string]>([
    [
      { toolTimeoutMs: 0 },
      "environment: toolTimeoutMs must be a number > 0 (or Infinity for no limit), got 0",
    ],
    [{ toolTimeoutMs: Number.NaN }, "environment: toolTimeoutMs must be a number > 0"],
    [
      { concurrency: 0 },
      "environment: concurrency must be a whole number > 0 (or Infinity for no limit), got 0",
    ],
    [{ concurrency: Number.NaN }, "environment: concurrency must be a whole number > 0"],
    [{ maxArgumentChars: 2.5 }, "environment: maxArgumentChars must be a whole number > 0"],
    [{ maxResultChars: -1 }, "environment: maxResultChars must be a whole number > 0"],
  ])("refuses %j", (environment, message) => {
    expect(() => new Agent({ model: new ScriptedModel([]), environment })).toThrowError(message);
  });

  it("refuses a tool's own bad timeout or result limit, naming the tool", () => {
    const t = tool({ name: "slow", description: "d", input: z.object({}), timeoutMs: -1, run: () => 1 });
    expect(() => new Agent({ model: new ScriptedModel([]), tools: [t] })).toThrowError(
      'Tool "slow": timeoutMs must be a number > 0 (or Infinity for no limit), got -1',
    );
  });

  it("takes Infinity as no timeout: the timer does not fire at once", async () => {
    const slow = tool({
      name: "slow",
      description: "d",
      input: z.object({}),
      run: () => new Promise((resolve) => setTimeout(() => resolve("finished"), 20)),
    });
    const { toolMessage } = await callOnce({ name: "slow", args: {} }, [slow], {
      toolTimeoutMs: Number.POSITIVE_INFINITY,
    });
    expect(toolMessage.content).toBe("finished");
  });
});

describe("a tool schema that throws while checking arguments", () => {
  it("becomes a generic refusal with details in the event only, not a crashed run", async () => {
    const run = vi.fn(() => "ran");
    const buggy = tool({
      name: "buggy",
      description: "d",
      input: z.object({ a: z.number() }).refine(() => {
        throw new Error("refinement bug at /srv/app/secret.ts");
      }),
      run,
    });
    const { toolMessage, event, model } = await callOnce({ name: "buggy", args: { a: 1 } }, [buggy]);
    expect(run).not.toHaveBeenCalled();
    expect(toolMessage.content).toBe(
      "Tool buggy failed with an internal error while checking its arguments.",
    );
    expect(event.status).toBe("invalid");
    expect(event.errorDetail).toContain("refinement bug at /srv/app/secret.ts");
    expect(JSON.stringify(model.requests)).not.toContain("/srv/app");
  });
});
