import fc from "fast-check";
import type { Message, ToolCall } from "glassloop";
import {
  type MemoryContext,
  SUMMARY_PREFIX,
  SummaryMemory,
  type SummaryRequest,
  TokenCounter,
  WindowMemory,
} from "glassloop/memory";
import { describe, expect, it } from "vitest";
import { fenceFor } from "../../src/core/prompt-fence.js";

/** The exact text of the message that carries a summary: prefix, the fence's rule, the fenced text. */
function summaryText(text: string): string {
  const fence = fenceFor("summary", [text]);
  return `${SUMMARY_PREFIX} ${fence.rule}\n<${fence.name}>\n${text}\n</${fence.name}>`;
}

const tokens = TokenCounter.estimating();
const tools = [{ name: "t", description: "A tool.", parameters: { type: "object", properties: {} } }];

/** Random transcripts that satisfy invariant 1: every call answered exactly once, right after its turn. */
const transcript = fc
  .array(
    fc.record({
      user: fc.string({ minLength: 1, maxLength: 300 }),
      turns: fc.array(
        fc.record({
          text: fc.string({ maxLength: 80 }),
          calls: fc.array(
            fc.record({ args: fc.string({ maxLength: 200 }), result: fc.string({ maxLength: 600 }) }),
            { minLength: 0, maxLength: 3 },
          ),
        }),
        { maxLength: 4 },
      ),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((exchanges) => {
    const messages: Message[] = [];
    let id = 0;
    for (const ex of exchanges) {
      messages.push({ role: "user", content: ex.user });
      for (const turn of ex.turns) {
        if (turn.calls.length === 0) {
          messages.push({ role: "assistant", content: turn.text || "ok" });
          continue;
        }
        const calls: ToolCall[] = turn.calls.map((c) => ({ id: `c${++id}`, name: "t", arguments: c.args }));
        messages.push({ role: "assistant", content: turn.text, toolCalls: calls });
        for (const [i, c] of turn.calls.entries())
          messages.push({ role: "tool", toolCallId: calls[i]?.id ?? "", toolName: "t", content: c.result });
      }
    }
    return messages;
  });

function context(extra: Partial<MemoryContext> = {}): MemoryContext {
  return {
    instructions: "You are a careful assistant.",
    tools,
    tokens,
    summarize: async () => "short summary",
    ...extra,
  };
}

/** Invariant 1 in what the model sees: each call with exactly one result, no result without its call. */
function expectPaired(view: readonly Message[]): void {
  const calls = new Map<string, number>();
  for (const m of view) if (m.role === "assistant") for (const c of m.toolCalls ?? []) calls.set(c.id, 0);
  for (const m of view) {
    if (m.role !== "tool") continue;
    expect(calls.has(m.toolCallId)).toBe(true);
    calls.set(m.toolCallId, (calls.get(m.toolCallId) ?? 0) + 1);
  }
  for (const count of calls.values()) expect(count).toBe(1);
}

function latestUser(messages: readonly Message[]): Message | undefined {
  return messages.filter((m) => m.role === "user").at(-1);
}

function requestTokens(view: readonly Message[]): number {
  const ctx = context();
  return tokens.request({ instructions: ctx.instructions ?? "", tools, messages: view });
}

function isSubsequence(view: readonly Message[], all: readonly Message[]): boolean {
  let i = 0;
  for (const m of all) if (view[i] === m) i++;
  return i === view.length;
}

describe("WindowMemory", () => {
  it("never orphans a tool call, keeps the latest user message, stays in budget, keeps order", async () => {
    await fc.assert(
      fc.asyncProperty(transcript, fc.integer({ min: 60, max: 3_000 }), async (messages, maxTokens) => {
        const view = await new WindowMemory({ maxTokens }).select(messages, context());
        expectPaired(view);
        expect(isSubsequence(view, messages)).toBe(true);
        const latest = latestUser(messages);
        expect(view).toContain(latest);
        expect(view[0]?.role).toBe("user");
        const mandatory = requestTokens(latest ? [latest] : []);
        if (mandatory <= maxTokens) expect(requestTokens(view)).toBeLessThanOrEqual(maxTokens);
        // Nothing is dropped when everything fits.
        if (requestTokens(messages) <= maxTokens && messages[0]?.role === "user")
          expect(view).toEqual(messages);
      }),
      { numRuns: 300 },
    );
  });

  it("keeps the newest units that fit and drops the oldest first", async () => {
    const m: Message[] = [
      { role: "user", content: "old question ".repeat(40) },
      { role: "assistant", content: "old answer ".repeat(40) },
      { role: "user", content: "new question" },
      { role: "assistant", content: "", toolCalls: [{ id: "a", name: "t", arguments: "{}" }] },
      { role: "tool", toolCallId: "a", toolName: "t", content: "result" },
    ];
    const view = await new WindowMemory({ maxTokens: 120 }).select(m, context());
    expect(view).toEqual(m.slice(2));
  });
});

describe("SummaryMemory", () => {
  it("never orphans a tool call, keeps the latest user message verbatim, stays in budget", async () => {
    await fc.assert(
      fc.asyncProperty(
        transcript,
        fc.integer({ min: 150, max: 3_000 }),
        fc.integer({ min: 0, max: 8 }),
        async (messages, maxTokens, keepRecent) => {
          const requests: SummaryRequest[] = [];
          const ctx = context({
            summarize: async (r) => {
              requests.push(r);
              return "the summary";
            },
          });
          const view = await new SummaryMemory({ maxTokens, keepRecent }).select(messages, ctx);
          expectPaired(view);
          const latest = latestUser(messages);
          expect(view).toContain(latest);
          const fits = requestTokens(messages) <= maxTokens;
          expect(requests.length).toBe(fits ? 0 : requests.length);
          if (fits) expect(view).toEqual(messages);
          const summary: Message = { role: "user", content: summaryText("the summary") };
          if (requestTokens([summary, ...(latest ? [latest] : [])]) <= maxTokens)
            expect(requestTokens(view)).toBeLessThanOrEqual(maxTokens);
          // The summarizer never sees raw tool-call structure, only text.
          for (const r of requests) expect(typeof r.prompt).toBe("string");
        },
      ),
      { numRuns: 200 },
    );
  });

  it("summarizes at the threshold, once, and reuses the summary while the view fits", async () => {
    const prompts: string[] = [];
    const ctx = context({
      instructions: "",
      tools: [],
      summarize: async (r) => {
        prompts.push(r.prompt);
        return "they talked about numbers";
      },
    });
    const memory = new SummaryMemory({ maxTokens: 200, keepRecent: 2 });
    const messages: Message[] = [];
    const say = (i: number) => {
      messages.push({ role: "user", content: `question ${i} ${"x".repeat(60)}` });
      messages.push({ role: "assistant", content: `answer ${i} ${"y".repeat(60)}` });
    };
    let turns = 0;
    while (requestTokensOf(messages, ctx) <= 200) {
      say(turns++);
      await memory.select(messages, ctx);
      if (requestTokensOf(messages, ctx) <= 200) expect(prompts).toEqual([]);
    }
    // Just over the threshold: exactly one summary, covering all but the last two messages.
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("question 0");
    expect(prompts[0]).not.toContain(`answer ${turns - 1}`);
    const view = await memory.select(messages, ctx);
    expect(prompts).toHaveLength(1);
    expect(view[0]?.content).toBe(summaryText("they talked about numbers"));
    expect(view[0]?.content).toMatch(
      /^Summary of the earlier conversation: Text between <summary-[0-9a-f]{16}> and/,
    );
    expect(view.slice(-2)).toEqual(messages.slice(-2));
    // Growing further extends the summary from where it stopped, not from the start.
    const before = turns;
    while (prompts.length === 1 && turns < before + 20) {
      say(turns++);
      await memory.select(messages, ctx);
    }
    expect(turns - before).toBeGreaterThan(1);
    expect(prompts).toHaveLength(2);
    expect(prompts.at(-1)).toMatch(
      /\n\nSummary so far:\n<(transcript-[0-9a-f]{16})>\nthey talked about numbers\n<\/\1>\n\nuser:\n<\1>\nquestion /,
    );
    expect(
      prompts
        .at(-1)
        ?.startsWith("Extend the summary so far with the messages after it.\n\nText between <transcript-"),
    ).toBe(true);
    expect(prompts.at(-1)).not.toContain("question 0");
  });
});

function requestTokensOf(messages: readonly Message[], ctx: MemoryContext): number {
  return ctx.tokens.request({ instructions: ctx.instructions ?? "", tools: ctx.tools, messages });
}
