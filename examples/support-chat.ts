/**
 * A support agent to serve over HTTP, with a tool that needs a person's approval. Run it:
 *
 *   npx glassloop serve examples/support-chat.ts          # offline: a scripted demo model
 *   GLASSLOOP_MODEL=openai:gpt-4o-mini npx glassloop serve examples/support-chat.ts
 *
 * then open the printed URL, ask "where is order A-1001?", then "refund order A-1001", approve
 * or reject the refund, reload mid-answer, and open a step's exact request.
 */
import { randomUUID } from "node:crypto";
import type { Message, Model, ModelObserver, ModelRequest, ModelResponse } from "glassloop";
import { tool } from "glassloop";
import { defineServe } from "glassloop/serve";
import { z } from "zod";

const ORDERS: Record<string, { status: string; total: number }> = {
  "A-1001": { status: "shipped on Monday, arriving Thursday", total: 42 },
  "A-1002": { status: "waiting for stock", total: 15 },
};

/** Looks an order up (read-only: runs without asking). */
export const lookupOrder = tool({
  name: "lookup_order",
  description: "Looks an order up by its id, e.g. A-1001.",
  input: z.object({ order: z.string().describe("The order id") }),
  run: ({ order }) => ({ order, ...(ORDERS[order] ?? { status: "unknown order" }) }),
});

/** Refunds an order: money leaves, so a person approves each call first. */
export const refundOrder = tool({
  name: "refund_order",
  description: "Refunds an order in full.",
  input: z.object({ order: z.string(), amount: z.number().positive() }),
  needsApproval: true,
  run: ({ order, amount }) => `Refunded ${amount} EUR on ${order}.`,
});

/**
 * The offline model: answers from the transcript with canned replies, streamed a word at a time
 * (slowly enough to reload the page mid-answer and watch it continue).
 */
export class DemoSupportModel implements Model {
  readonly id = "demo:support";
  /** Free, so the agent's cost limit applies to it as to a priced model. */
  readonly price = { inputPerMTok: 0, outputPerMTok: 0 };
  readonly #delayMs: number;
  constructor(delayMs = 60) {
    this.#delayMs = delayMs;
  }

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    observer.onRequest({
      body: { model: this.id, instructions: request.instructions, messages: request.messages },
      attempt: 1,
    });
    const reply = decide(request.messages);
    if (request.stream) {
      for (const word of reply.text.match(/\S+\s*/g) ?? []) {
        await sleep(this.#delayMs, request.signal);
        observer.onDelta?.({ type: "text", text: word });
      }
    }
    const toolCalls = reply.call ? [{ id: `call_${randomUUID().slice(0, 8)}`, ...reply.call }] : [];
    return {
      text: reply.text,
      toolCalls,
      usage: {
        inputTokens: JSON.stringify(request.messages).length >> 2,
        outputTokens: reply.text.length >> 2,
      },
      finishReason: toolCalls.length > 0 ? "tool_calls" : "stop",
      raw: reply,
    };
  }
}

function decide(messages: readonly Message[]): { text: string; call?: { name: string; arguments: string } } {
  const last = messages.at(-1);
  if (last?.role === "tool") {
    if (last.toolName === "refund_order")
      return { text: last.isError ? "Understood: no refund was made." : `Done. ${last.content}` };
    return { text: `Here is what I found: ${last.content}` };
  }
  const text = last?.role === "user" ? last.content : "";
  const order = /[A-Z]-\d{4}/.exec(text)?.[0] ?? "A-1001";
  if (/refund/i.test(text))
    return {
      text: `I can refund ${order}; that needs your approval. `,
      call: {
        name: "refund_order",
        arguments: JSON.stringify({ order, amount: ORDERS[order]?.total ?? 10 }),
      },
    };
  if (/order|where|status/i.test(text))
    return {
      text: `Let me look ${order} up. `,
      call: { name: "lookup_order", arguments: JSON.stringify({ order }) },
    };
  return {
    text:
      "I am glassloop's offline demo model (set GLASSLOOP_MODEL, e.g. openai:gpt-4o-mini, for a real one). " +
      'Ask "where is order A-1001?" or "refund order A-1001", and open the request of any step beside my answer.',
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}

/** The module `glassloop serve` loads: agents as factories, called per run. */
export default defineServe({
  agents: {
    support: () => ({
      instructions:
        "You are a support agent for an online shop. Use the tools; never refund without approval.",
      model: process.env.GLASSLOOP_MODEL ?? new DemoSupportModel(),
      tools: [lookupOrder, refundOrder],
      limits: { maxSteps: 8, maxCostUsd: 0.05 },
    }),
  },
});
