import fc from "fast-check";
import {
  Agent,
  type AgentEvent,
  BudgetExceededError,
  type Limits,
  type Message,
  RunError,
  type RunResult,
  ToolError,
  ToolRegistry,
  tool,
} from "glassloop";
import { ScriptedModel, type ScriptedToolCall, type ScriptStep } from "glassloop/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type Ending, eventViolations, pairingViolations } from "../helpers/invariants.js";

// ---- the world the random scripts play in ---------------------------------------------------

const SECRET = "SECRET-KEY-9f3a";

/** The hidden context; it also counts what the tools really ran, so the test can check refusals. */
class Vault {
  readonly secret = SECRET;
  readonly runs: Record<string, number> = {};
  readonly violations: string[] = [];
  count(name: string): void {
    this.runs[name] = (this.runs[name] ?? 0) + 1;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const tools = [
  tool({
    name: "double",
    description: "Doubles n.",
    input: z.object({ n: z.number().int() }),
    context: Vault,
    run: ({ n }, { context }) => {
      context.count("double");
      return n * 2;
    },
  }),
  tool({
    name: "slow",
    description: "Answers after ms milliseconds, ignoring the signal.",
    input: z.object({ ms: z.number().int().min(0).max(5) }),
    context: Vault,
    run: async ({ ms }, { context }) => {
      context.count("slow");
      await sleep(ms);
      return `slept ${ms}`;
    },
  }),
  tool({
    name: "late_fail",
    description: "Fails after ms milliseconds with a plain exception, ignoring the signal.",
    input: z.object({ ms: z.number().int().min(0).max(5) }),
    context: Vault,
    run: async ({ ms }, { context }) => {
      context.count("late_fail");
      await sleep(ms);
      throw new Error(`late failure reading /home/app/.env (${SECRET})`);
    },
  }),
  tool({
    name: "refuse",
    description: "Always refuses.",
    input: z.object({}),
    context: Vault,
    run: (_args, { context }) => {
      context.count("refuse");
      throw new ToolError("I cannot do that for this city.");
    },
  }),
  tool({
    name: "crash",
    description: "Crashes with a plain exception, or throws something that is not an Error at all.",
    input: z.object({ how: z.enum(["error", "string", "undefined"]) }),
    context: Vault,
    run: ({ how }, { context }) => {
      context.count("crash");
      if (how === "string") throw `disk failure at /var/lib/app with ${SECRET}`;
      if (how === "undefined") throw undefined;
      throw new Error(`disk failure at /var/lib/app with ${SECRET}`);
    },
  }),
  tool({
    name: "odd",
    description: "Returns values that are awkward to send to a model.",
    input: z.object({ what: z.enum(["circular", "bigint", "undefined", "huge", "symbol"]) }),
    context: Vault,
    run: ({ what }, { context }): unknown => {
      context.count("odd");
      if (what === "circular") {
        const loop: Record<string, unknown> = { secret: SECRET };
        loop.self = loop;
        return loop;
      }
      if (what === "bigint") return { n: 10n };
      if (what === "symbol") return Symbol("x");
      if (what === "huge") return "y".repeat(30_000);
      return undefined;
    },
  }),
  tool({
    name: "hang",
    description: "Never answers; with obey it rejects when its signal fires.",
    input: z.object({ obey: z.boolean() }),
    context: Vault,
    run: ({ obey }, { context, signal }) => {
      context.count("hang");
      return new Promise((_resolve, reject) => {
        if (obey) signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    },
  }),
  tool({
    name: "stall",
    description: "Never answers; has its own 5 ms timeout; with obey it rejects when its signal fires.",
    input: z.object({ obey: z.boolean() }),
    context: Vault,
    timeoutMs: 5,
    run: ({ obey }, { context, signal }) => {
      context.count("stall");
      return new Promise((_resolve, reject) => {
        if (obey) signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    },
  }),
  tool({
    name: "convert",
    description: "Celsius to Fahrenheit.",
    input: z.object({ celsius: z.number().min(-100).max(100) }),
    context: Vault,
    run: ({ celsius }, { context }) => {
      context.count("convert");
      if (celsius < -100 || celsius > 100) context.violations.push(`convert ran with ${celsius}`);
      return { fahrenheit: (celsius * 9) / 5 + 32 };
    },
  }),
];

const finish = tool({
  name: "finish",
  description: "Ends the task with the answer.",
  input: z.object({ answer: z.string() }),
  context: Vault,
  run: ({ answer }, { context }) => {
    context.count("finish");
    return `finished: ${answer}`;
  },
});

const MAX_ARGUMENT_CHARS = 300;

// ---- random scripts -------------------------------------------------------------------------

type Mode = "text" | "terminal" | "output";

type Call =
  | { kind: "double"; n: number }
  | { kind: "slow" | "late_fail"; ms: number }
  | { kind: "refuse" | "unknown" | "bad_json" | "schema" | "too_long" | "convert" }
  | { kind: "crash"; how: "error" | "string" | "undefined" }
  | { kind: "odd"; what: "circular" | "bigint" | "undefined" | "huge" | "symbol" }
  | { kind: "hang"; obey: boolean; own: boolean }
  | { kind: "end"; valid: boolean };

type Step =
  | { kind: "text"; delayMs: number }
  | { kind: "calls"; calls: { call: Call; id: string | undefined }[]; text: boolean; delayMs: number }
  | { kind: "model_error"; delayMs: number }
  | { kind: "model_hang" }
  /** The previous tool-call step once more, as a model stuck in a loop does. */
  | { kind: "again" };

type Abort =
  | { kind: "none" }
  | { kind: "before" }
  | { kind: "at_event"; index: number }
  | { kind: "after_ms"; ms: number };

interface Scenario {
  mode: Mode;
  stream: boolean;
  limits: Limits;
  loopGuard: false | { maxRepeats: number };
  toolTimeoutMs: number;
  concurrency: number;
  abort: Abort;
  /** The model has a price, so usage has a cost and `limits.maxCostUsd` may be set. */
  priced: boolean;
  /** A stream consumer that stops reading after this many events (the run must still settle). */
  stopReadingAt: number | undefined;
  /** A history that ends with unanswered calls, as a crashed run leaves it. */
  interrupted: boolean;
  steps: Step[];
}

/** Few distinct values, so repeated identical calls (the loop guard's case) are common. */
const callArb = (timing: boolean): fc.Arbitrary<Call> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({ kind: fc.constant("double" as const), n: fc.integer({ min: 0, max: 2 }) }),
    },
    {
      weight: timing ? 2 : 1,
      arbitrary: fc.record({
        kind: fc.constantFrom("slow" as const, "late_fail" as const),
        ms: timing ? fc.integer({ min: 0, max: 3 }) : fc.constant(0),
      }),
    },
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constantFrom(
          "refuse" as const,
          "unknown" as const,
          "bad_json" as const,
          "schema" as const,
          "too_long" as const,
          "convert" as const,
        ),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("crash" as const),
        how: fc.constantFrom("error" as const, "string" as const, "undefined" as const),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("odd" as const),
        what: fc.constantFrom(
          "circular" as const,
          "bigint" as const,
          "undefined" as const,
          "huge" as const,
          "symbol" as const,
        ),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("hang" as const),
        obey: fc.boolean(),
        // The agent-wide tool timeout is only short when timing is in play; "stall" has its own.
        own: timing ? fc.boolean() : fc.constant(true),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("end" as const), valid: fc.boolean() }) },
  );

/** Ids: mostly left to the model double; sometimes empty or reused, as local models do. */
const idArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom("", "call_dup", "call_1") },
);

const stepArb = (timing: boolean): fc.Arbitrary<Step> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("text" as const), delayMs: fc.constant(0) }) },
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant("calls" as const),
        calls: fc.array(fc.record({ call: callArb(timing), id: idArb }), { minLength: 1, maxLength: 4 }),
        text: fc.boolean(),
        delayMs: timing ? fc.integer({ min: 0, max: 2 }) : fc.constant(0),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant("model_error" as const), delayMs: fc.constant(0) }),
    },
    { weight: 2, arbitrary: fc.constant({ kind: "again" as const }) },
    ...(timing ? [{ weight: 1, arbitrary: fc.record({ kind: fc.constant("model_hang" as const) }) }] : []),
  );

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });

/**
 * A random scenario. With `timing`, wall-clock behaviour joins in (the run's timeoutMs, aborts
 * after a delay, model calls that hang); without it, everything that happens is decided by the
 * script, so run() and stream() must produce the same transcript.
 */
const scenarioArb = (timing: boolean): fc.Arbitrary<Scenario> =>
  fc
    .record({
      mode: fc.constantFrom<Mode>("text", "terminal", "output"),
      stream: fc.boolean(),
      limits: fc.record({
        maxSteps: fc.integer({ min: 1, max: 8 }),
        maxToolCalls: optional(fc.integer({ min: 0, max: 8 })),
        maxTokens: optional(fc.integer({ min: 40, max: 3000 })),
        maxRetries: optional(fc.integer({ min: 0, max: 3 })),
        timeoutMs: timing ? optional(fc.integer({ min: 3, max: 40 })) : fc.constant(undefined),
      }),
      loopGuard: fc.oneof(
        fc.constant(false as const),
        fc.record({ maxRepeats: fc.integer({ min: 0, max: 2 }) }),
      ),
      // Without timing, no tool may time out by chance on a loaded machine: only "stall" does.
      toolTimeoutMs: timing ? fc.integer({ min: 5, max: 15 }) : fc.constant(2000),
      concurrency: fc.integer({ min: 1, max: 4 }),
      abort: fc.oneof(
        { weight: 4, arbitrary: fc.constant<Abort>({ kind: "none" }) },
        { weight: 1, arbitrary: fc.constant<Abort>({ kind: "before" }) },
        {
          weight: 3,
          arbitrary: fc.record({
            kind: fc.constant("at_event" as const),
            index: fc.integer({ min: 0, max: 40 }),
          }),
        },
        ...(timing
          ? [
              {
                weight: 2,
                arbitrary: fc.record({
                  kind: fc.constant("after_ms" as const),
                  ms: fc.integer({ min: 0, max: 12 }),
                }),
              },
            ]
          : []),
      ),
      priced: fc.boolean(),
      maxCostUsd: optional(fc.double({ min: 0.01, max: 2, noNaN: true })),
      stopReadingAt: optional(fc.integer({ min: 0, max: 30 })),
      interrupted: fc.boolean(),
      steps: fc.array(stepArb(timing), { minLength: 0, maxLength: 8 }),
    })
    .map(({ maxCostUsd, ...s }) => {
      // A model call that hangs needs something to end it, or the run would wait forever.
      const canStop =
        s.limits.timeoutMs !== undefined || s.abort.kind === "after_ms" || s.abort.kind === "before";
      const steps = canStop
        ? s.steps
        : s.steps.map((st) => (st.kind === "model_hang" ? { kind: "text" as const, delayMs: 0 } : st));
      // A cost limit needs a price (without one the agent refuses to start, which is a unit test's job).
      const limits = s.priced && maxCostUsd !== undefined ? { ...s.limits, maxCostUsd } : s.limits;
      return { ...s, limits, steps };
    });

function endCall(mode: Mode, valid: boolean): ScriptedToolCall {
  if (mode === "output")
    return { name: "final_result", args: valid ? { answer: 42 } : { answer: "forty-two" } };
  // In text mode nothing called "finish" is registered: an unknown tool.
  return { name: "finish", args: valid ? { answer: "done" } : { answer: 7 } };
}

function toScriptCall(mode: Mode, call: Call): ScriptedToolCall {
  switch (call.kind) {
    case "double":
      return { name: "double", args: { n: call.n } };
    case "slow":
    case "late_fail":
      return { name: call.kind, args: { ms: call.ms } };
    case "refuse":
      return { name: "refuse", args: {} };
    case "crash":
      return { name: "crash", args: { how: call.how } };
    case "odd":
      return { name: "odd", args: { what: call.what } };
    case "hang":
      return { name: call.own ? "stall" : "hang", args: { obey: call.obey } };
    case "unknown":
      return { name: "no_such_tool", args: {} };
    case "bad_json":
      return { name: "double", args: '{"n": 1' };
    case "schema":
      return { name: "convert", args: { celsius: 10000 } };
    case "convert":
      return { name: "convert", args: { celsius: 20 } };
    case "too_long":
      return { name: "double", args: { n: 1, pad: "x".repeat(MAX_ARGUMENT_CHARS) } };
    case "end":
      return endCall(mode, call.valid);
  }
}

function toScript(s: Scenario): ScriptStep[] {
  let previous: Exclude<Step, { kind: "again" }> = { kind: "text", delayMs: 0 };
  return s.steps.map((step) => {
    if (step.kind !== "again") previous = step;
    // Repeated with fresh ids, as a model does when it asks for the same calls again.
    else if (previous.kind === "calls")
      previous = { ...previous, calls: previous.calls.map(({ call }) => ({ call, id: undefined })) };
    return toScriptStep(s.mode, previous);
  });
}

function toScriptStep(mode: Mode, step: Exclude<Step, { kind: "again" }>): ScriptStep {
  switch (step.kind) {
    case "text":
      return { text: "The answer is 42.", delayMs: step.delayMs };
    case "model_error":
      return { error: "503 upstream unavailable", delayMs: step.delayMs };
    case "model_hang":
      return { text: "never", delayMs: Number.POSITIVE_INFINITY };
    case "calls":
      return {
        ...(step.text && { text: "Let me use the tools." }),
        delayMs: step.delayMs,
        toolCalls: step.calls.map(({ call, id }) => ({
          ...toScriptCall(mode, call),
          ...(id !== undefined && { id }),
        })),
      };
  }
}

function buildAgent(s: Scenario, model: ScriptedModel): Agent<Vault, unknown> {
  const base = {
    instructions: "Use the tools.",
    model,
    context: new Vault(),
    limits: s.limits,
    loopGuard: s.loopGuard,
    environment: {
      toolTimeoutMs: s.toolTimeoutMs,
      concurrency: s.concurrency,
      maxArgumentChars: MAX_ARGUMENT_CHARS,
    },
  };
  if (s.mode === "output") {
    return new Agent({ ...base, tools, output: z.object({ answer: z.number() }) }) as Agent<Vault, unknown>;
  }
  if (s.mode === "terminal") {
    const registry = ToolRegistry.from<Vault>(tools).register(finish, { terminal: true });
    return new Agent({ ...base, tools: registry }) as Agent<Vault, unknown>;
  }
  return new Agent({ ...base, tools }) as Agent<Vault, unknown>;
}

const HISTORY: Message[] = [
  { role: "system", content: "An older system prompt." },
  { role: "user", content: "Double 2." },
  { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "double", arguments: '{"n":2}' }] },
];

// ---- one run, observed from outside ----------------------------------------------------------

interface Observed {
  scenario: Scenario;
  model: ScriptedModel;
  vault: Vault;
  events: AgentEvent[];
  result?: RunResult<unknown>;
  error?: unknown;
  /** Events that arrived after the run settled. */
  late: AgentEvent[];
  /** The stream's iterator yielded other events than its onEvent listener got. */
  streamMismatch?: boolean;
}

/** One dollar per thousand tokens: a few steps reach the random cost limits. */
const PRICE = { inputPerMTok: 1000, outputPerMTok: 1000 };
/** Events only a streaming run emits: the pieces of text, reasoning and tool-call arguments. */
const STREAM_ONLY = new Set<AgentEvent["type"]>(["text_delta", "reasoning_delta", "tool_call_delta"]);

async function play(s: Scenario, stream: boolean, stopReadingAt?: number): Promise<Observed> {
  const model = new ScriptedModel(toScript(s), s.priced ? { price: PRICE } : {});
  const agent = buildAgent(s, model);
  const vault = new Vault();
  const controller = new AbortController();
  const events: AgentEvent[] = [];
  const late: AgentEvent[] = [];
  let settled = false;
  let counted = 0;
  const onEvent = (event: AgentEvent) => {
    if (settled) late.push(event);
    else events.push(event);
    // Deltas only exist when streaming; counting without them aborts both modes at the same point.
    if (!STREAM_ONLY.has(event.type) && s.abort.kind === "at_event" && counted++ === s.abort.index) {
      controller.abort(new Error("the user pressed stop"));
    }
  };
  if (s.abort.kind === "before") controller.abort();
  const timer = s.abort.kind === "after_ms" ? setTimeout(() => controller.abort(), s.abort.ms) : undefined;
  const options = {
    signal: controller.signal,
    context: vault,
    onEvent,
    ...(s.interrupted && { history: HISTORY }),
  };
  const observed: Observed = { scenario: s, model, vault, events, late };
  try {
    if (stream) {
      const run = agent.stream("Please work.", options);
      const read: AgentEvent[] = [];
      for await (const event of run) {
        if (read.length === stopReadingAt) break;
        read.push(event);
      }
      // What the iterator yielded is what onEvent saw (all of it, unless the reader stopped early),
      // checked before `result` so failed runs are checked too.
      const expected = stopReadingAt === undefined ? events : events.slice(0, stopReadingAt);
      if (read.length !== expected.length || read.some((e, i) => e !== expected[i]))
        observed.streamMismatch = true;
      observed.result = await run.result;
    } else {
      observed.result = await agent.run("Please work.", options);
    }
  } catch (error) {
    observed.error = error;
  } finally {
    settled = true;
    clearTimeout(timer);
  }
  return observed;
}

/** Everything that must hold of any run, whatever the script did. */
function violations(o: Observed): string[] {
  const { scenario: s, result, error, model, vault, events } = o;
  const problems: string[] = [];
  let messages: Message[] = [];
  let ending: Ending = { ok: true };
  if (result) {
    messages = result.messages;
    if (typeof result.usage?.requests !== "number") problems.push("result without usage");
    const last = messages.at(-1);
    if (s.mode === "text") {
      if (
        result.finishedBy !== "text" ||
        last?.role !== "assistant" ||
        last.toolCalls ||
        last.content !== result.output
      )
        problems.push(`text run reported success it did not reach: ${JSON.stringify(last)}`);
    } else {
      const endTool = s.mode === "output" ? "final_result" : "finish";
      if (result.finishedBy !== endTool || last?.role !== "tool")
        problems.push(`finished by ${result.finishedBy}`);
      const wanted = s.mode === "output" ? { answer: 42 } : "finished: done";
      if (JSON.stringify(result.output) !== JSON.stringify(wanted))
        problems.push(`output ${JSON.stringify(result.output)}`);
    }
  } else if (error instanceof RunError) {
    ending = { ok: false, code: error.code };
    if (!Array.isArray(error.messages)) problems.push("error without messages");
    if (typeof error.usage?.requests !== "number") problems.push("error without usage");
    messages = error.messages ?? [];
    if (error instanceof BudgetExceededError && !(error.used >= error.max))
      problems.push(`budget error ${error.limit} with used ${error.used} < max ${error.max}`);
  } else {
    return [`the run rejected with a non-RunError: ${String(error)}`];
  }

  problems.push(...pairingViolations(messages).map((p) => `transcript: ${p}`));
  // Results over the size limit are cut, with a short marker saying how much.
  for (const m of messages)
    if (m.role === "tool" && m.content.length > 20_100)
      problems.push(`a ${m.content.length}-character result`);
  const conversation = messages.slice(1);
  model.requests.forEach((request, i) => {
    problems.push(...pairingViolations(request.messages).map((p) => `request ${i + 1}: ${p}`));
    // History only grows: what the model saw is the start of the final transcript.
    if (JSON.stringify(request.messages) !== JSON.stringify(conversation.slice(0, request.messages.length)))
      problems.push(`request ${i + 1} is not a prefix of the transcript`);
  });
  problems.push(...eventViolations(events, ending).map((p) => `events: ${p}`));
  const end = events.at(-1);
  if (end?.type === "run_end" && JSON.stringify(end.messages) !== JSON.stringify(messages))
    problems.push("run_end.messages differs from the returned transcript");
  if (o.late.length > 0) problems.push(`${o.late.length} events after the run settled`);
  if (o.streamMismatch) problems.push("the stream yielded other events than onEvent received");

  const usage = result?.usage ?? (error as RunError).usage;
  const { maxSteps, maxToolCalls } = s.limits;
  if (maxSteps !== undefined && usage.requests > maxSteps)
    problems.push(`${usage.requests} requests > maxSteps`);
  // Every request sent counts in usage, a failed or cut-off one too.
  const count = (type: AgentEvent["type"]) => events.filter((e) => e.type === type).length;
  if (count("model_request") !== model.requests.length) problems.push("model_request events ≠ requests sent");
  if (count("model_request") !== usage.requests) problems.push("model_request events ≠ usage.requests");
  const ran = Object.values(vault.runs).reduce((a, b) => a + b, 0);
  // The built-in final_result tool counts in usage but not in the vault.
  const finals = events.filter((e) => e.type === "tool_call" && e.toolName === "final_result").length;
  if (usage.toolCalls < ran || usage.toolCalls > ran + finals)
    problems.push(`tools ran ${ran} times, usage says ${usage.toolCalls}`);
  if (maxToolCalls !== undefined && ran > maxToolCalls) problems.push(`${ran} tool runs > maxToolCalls`);
  problems.push(...vault.violations);

  // Hidden context and internal failure details never reach the model.
  const seen = JSON.stringify(model.requests);
  if (seen.includes(SECRET) || seen.includes("/var/lib") || seen.includes(".env"))
    problems.push("the model saw a secret or an internal error detail");
  return problems;
}

// ---- the properties ---------------------------------------------------------------------------

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(() => {
  process.on("unhandledRejection", onUnhandled);
  process.on("uncaughtException", onUnhandled);
});
afterAll(() => {
  process.off("unhandledRejection", onUnhandled);
  process.off("uncaughtException", onUnhandled);
});

/** Lets rejections that nobody handled surface (Node reports them after the microtask queue drains). */
const drain = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** How a run ended and how its tool calls ended, e.g. `end:budget_exceeded:maxSteps`, `tool:timeout`. */
function coverage(o: Observed): string[] {
  const paths = o.events.flatMap((e) => (e.type === "tool_result" ? [`tool:${e.status}`] : []));
  if (o.result) paths.push(`end:ok:${o.scenario.mode}`);
  else if (o.error instanceof BudgetExceededError) paths.push(`end:budget_exceeded:${o.error.limit}`);
  else if (o.error instanceof RunError) paths.push(`end:${o.error.code}`);
  return paths;
}

const EXPECTED_COVERAGE = [
  ...["ok", "error", "invalid", "timeout", "aborted", "repeated", "not_executed"].map((s) => `tool:${s}`),
  ...["text", "terminal", "output"].map((m) => `end:ok:${m}`),
  ...["maxSteps", "maxToolCalls", "maxTokens", "maxCostUsd", "timeoutMs"].map(
    (l) => `end:budget_exceeded:${l}`,
  ),
  ...["aborted", "loop_detected", "model_behavior", "model_error", "script_exhausted"].map((c) => `end:${c}`),
];
const covered = new Set<string>();

/** `GLASSLOOP_PROPERTY_RUNS=20000` hunts longer (the coverage check is then skipped). */
const RUNS = Number(process.env.GLASSLOOP_PROPERTY_RUNS ?? 0) || undefined;
const TIMEOUT_MS = RUNS === undefined ? 120_000 : 100 * RUNS;

describe("the loop's invariants over random scripts", () => {
  it(
    "every call has exactly one result (transcript and next request), events are well ordered, failures are typed",
    async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb(true), async (s) => {
          const observed = await play(s, s.stream, s.stopReadingAt);
          await drain();
          for (const path of coverage(observed)) covered.add(path);
          const problems = violations(observed);
          if (unhandled.length > 0) problems.push(`unhandled: ${unhandled.map(String).join("; ")}`);
          expect(problems).toEqual([]);
        }),
        { numRuns: RUNS ?? 3000 },
      );
      // Tools that ignore their signal finish after their run ended; nothing may surface then either.
      await sleep(20);
      expect(unhandled).toEqual([]);
      // The random scripts really reached every way a run and a tool call can end.
      if (RUNS === undefined) expect(EXPECTED_COVERAGE.filter((path) => !covered.has(path))).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it(
    "run() and stream() give the same transcript for the same script (invariant 5)",
    async () => {
      await fc.assert(
        fc.asyncProperty(scenarioArb(false), async (s) => {
          const viaRun = await play(s, false);
          const viaStream = await play(s, true);
          expect(violations(viaRun)).toEqual([]);
          expect(violations(viaStream)).toEqual([]);
          const outcome = (o: Observed) =>
            o.result
              ? {
                  ok: true,
                  output: o.result.output,
                  finishedBy: o.result.finishedBy,
                  messages: o.result.messages,
                }
              : { ok: false, code: (o.error as RunError).code, messages: (o.error as RunError).messages };
          expect(outcome(viaStream)).toEqual(outcome(viaRun));
          const requests = (o: Observed) => o.model.requests.map(({ stream: _stream, ...rest }) => rest);
          expect(requests(viaStream)).toEqual(requests(viaRun));
          const kinds = (o: Observed) =>
            o.events
              .filter((e) => !STREAM_ONLY.has(e.type))
              .map((e) => (e.type === "tool_result" ? `${e.type}:${e.status}` : e.type));
          expect(kinds(viaStream)).toEqual(kinds(viaRun));
        }),
        { numRuns: RUNS ?? 1000 },
      );
    },
    TIMEOUT_MS,
  );
});
