import { readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../chat/src/ui-message.js";
import { MessageAssembler, type UiChunk } from "../../chat/src/ui-stream.js";

/** The last message `ai`'s own reader (what `useChat` runs) builds from the chunks. */
async function aiMessage(chunks: UiChunk[], base?: UIMessage): Promise<UIMessage | undefined> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk as UIMessageChunk);
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream, ...(base ? { message: base } : {}) }))
    last = message;
  return last;
}

function pageMessage(
  chunks: UiChunk[],
  base?: ChatMessage,
): { message: ChatMessage; page: MessageAssembler } {
  const page = new MessageAssembler(base, "");
  for (const chunk of chunks) page.apply(chunk);
  return { message: page.snapshot(), page };
}

/** Drops the fields that are `undefined` (JSON's view), so the two builders compare by content. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const turn: UiChunk[] = [
  { type: "start", messageId: "m1", messageMetadata: { model: "scripted" } },
  { type: "data-glassloop-run", id: "run", data: { runId: "r1" } },
  { type: "start-step" },
  { type: "reasoning-start", id: "r0" },
  { type: "reasoning-delta", id: "r0", delta: "Two lookups " },
  { type: "reasoning-delta", id: "r0", delta: "are needed." },
  { type: "reasoning-end", id: "r0" },
  { type: "tool-input-start", toolCallId: "c1", toolName: "weather" },
  { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: '{"city":' },
  { type: "tool-input-delta", toolCallId: "c1", inputTextDelta: '"Oslo"}' },
  { type: "tool-input-available", toolCallId: "c1", toolName: "weather", input: { city: "Oslo" } },
  { type: "tool-input-available", toolCallId: "c2", toolName: "weather", input: { city: "東京" } },
  { type: "tool-output-available", toolCallId: "c1", output: { tempC: 4 } },
  { type: "tool-output-error", toolCallId: "c2", errorText: "No station" },
  { type: "data-glassloop-step", id: "1", data: { step: 1, requestId: "q1" } },
  { type: "finish-step" },
  { type: "start-step" },
  { type: "text-start", id: "t1" },
  { type: "text-delta", id: "t1", delta: "Oslo is 4 °C; " },
  { type: "text-delta", id: "t1", delta: "<script>alert(1)</script>" },
  { type: "text-end", id: "t1" },
  { type: "data-glassloop-step", id: "2", data: { step: 2, requestId: "q2" } },
  { type: "data-glassloop-step", id: "2", data: { step: 2, requestId: "q2", done: true } },
  { type: "message-metadata", messageMetadata: { usage: { inputTokens: 10 } } },
  { type: "finish-step" },
  { type: "finish", finishReason: "stop", messageMetadata: { costUsd: 0.01 } },
];

describe("the chat page's stream assembler", () => {
  it("builds the same message as ai's readUIMessageStream from a turn with reasoning, two tool calls, text and data parts", async () => {
    const { message, page } = pageMessage(turn);
    expect(plain(message)).toEqual(plain(await aiMessage(turn)));
    expect(page.finishReason).toBe("stop");
    expect(page.end).toBe("finished");
    expect(page.errors).toEqual([]);
    expect(message.metadata).toEqual({ model: "scripted", usage: { inputTokens: 10 }, costUsd: 0.01 });
  });

  it("continues an assistant message after an approval the way ai does: the request, then the answer in a second stream", async () => {
    const first: UiChunk[] = [
      { type: "start", messageId: "m2" },
      { type: "start-step" },
      { type: "tool-input-available", toolCallId: "c9", toolName: "delete_file", input: { path: "a.txt" } },
      { type: "tool-approval-request", approvalId: "ap1", toolCallId: "c9" },
      { type: "finish-step" },
      { type: "finish", finishReason: "tool-calls" },
    ];
    const second: UiChunk[] = [
      { type: "start", messageId: "m2" },
      { type: "tool-output-available", toolCallId: "c9", output: "deleted" },
      { type: "start-step" },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "Done." },
      { type: "text-end", id: "t" },
      { type: "finish-step" },
      { type: "finish" },
    ];
    const ours = pageMessage(first).message;
    const theirs = await aiMessage(first);
    expect(plain(ours)).toEqual(plain(theirs));
    expect(ours.parts[1]).toMatchObject({ state: "approval-requested", approval: { id: "ap1" } });
    // The answer in between, as useChat's addToolApprovalResponse records it.
    const answered = (m: ChatMessage): ChatMessage => ({
      ...m,
      parts: m.parts.map((p) =>
        "toolCallId" in p
          ? { ...p, state: "approval-responded", approval: { id: "ap1", approved: true } }
          : p,
      ),
    });
    const next = pageMessage(second, answered(ours)).message;
    expect(plain(next)).toEqual(plain(await aiMessage(second, answered(theirs as ChatMessage) as UIMessage)));
    expect(next.parts.map((p) => p.type)).toEqual(["step-start", "tool-delete_file", "step-start", "text"]);
  });

  it("marks a denied call, a dynamic tool and an input error the way ai does", async () => {
    const chunks: UiChunk[] = [
      { type: "start" },
      { type: "start-step" },
      { type: "tool-input-available", toolCallId: "a", toolName: "pay", input: { usd: 5 } },
      { type: "tool-approval-request", approvalId: "x", toolCallId: "a" },
      { type: "tool-output-denied", toolCallId: "a" },
      { type: "tool-input-start", toolCallId: "b", toolName: "mcp_fetch", dynamic: true },
      { type: "tool-input-available", toolCallId: "b", toolName: "mcp_fetch", input: {}, dynamic: true },
      { type: "tool-output-available", toolCallId: "b", output: "ok" },
      {
        type: "tool-input-error",
        toolCallId: "c",
        toolName: "add",
        input: "{bad",
        errorText: "Invalid JSON",
      },
      { type: "finish" },
    ];
    const { message } = pageMessage(chunks);
    expect(plain(message)).toEqual(plain(await aiMessage(chunks)));
  });

  it("records chunks that refer to nothing (a hostile or broken stream) as errors instead of throwing", () => {
    const { page, message } = pageMessage([
      { type: "text-delta", id: "nope", delta: "x" },
      { type: "tool-output-available", toolCallId: "ghost", output: 1 },
      { type: "error", errorText: "model failed" },
      { type: "something-new" } as unknown as UiChunk,
    ]);
    expect(page.errors).toHaveLength(3);
    expect(page.errors[2]).toBe("model failed");
    expect(message.parts).toEqual([]);
  });

  it("keeps transient data parts out of the message", () => {
    const { page, message } = pageMessage([{ type: "data-notice", data: "hi", transient: true }]);
    expect(message.parts).toEqual([]);
    expect(page.transient).toEqual([{ type: "data-notice", data: "hi" }]);
  });
});
