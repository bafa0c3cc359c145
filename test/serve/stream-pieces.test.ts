import { HttpAgent } from "@ag-ui/client";
import { parseJsonEventStream, type UIMessage, uiMessageChunkSchema } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import type { Model, ModelObserver, ModelRequest, ModelResponse } from "../../src/index.js";
import { type NodeServer, startServer } from "../../src/serve/index.js";
import { Gate } from "../helpers/paced-model.js";
import { fragments } from "../helpers/secret-shapes.js";
import { ALICE, lookup, type Served, serve, TestChat } from "./harness.js";

const SECRET = "Zq9-hunter-of-keys-77";
const auth = { authorization: `Bearer ${ALICE}` };

/** One streamed answer: text pieces, tool-argument pieces, and gates, exactly as given. */
type Piece = { text: string } | { args: string; id?: string; name?: string; index?: number } | { wait: Gate };

/** A model whose first answer streams `pieces` (then a plain "Done." after any tool result). */
class PiecesModel implements Model {
  readonly id = "pieces:test";
  constructor(
    private readonly pieces: Piece[],
    private readonly calls: { id: string; name: string; arguments: string }[] = [],
  ) {}

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    observer.onRequest({ body: { messages: request.messages }, attempt: 1 });
    const usage = { inputTokens: 5, outputTokens: 5 };
    if (request.messages.at(-1)?.role === "tool") {
      observer.onDelta?.({ type: "text", text: "Done." });
      return { text: "Done.", toolCalls: [], usage, finishReason: "stop" };
    }
    let text = "";
    for (const piece of this.pieces) {
      if ("wait" in piece) await piece.wait.pass(request.signal);
      else if ("text" in piece) {
        text += piece.text;
        observer.onDelta?.({ type: "text", text: piece.text });
      } else {
        observer.onDelta?.({
          type: "tool_call",
          index: piece.index ?? 0,
          ...(piece.id !== undefined && { id: piece.id }),
          ...(piece.name !== undefined && { name: piece.name }),
          argumentsDelta: piece.args,
        });
      }
    }
    return {
      text,
      toolCalls: this.calls,
      usage,
      finishReason: this.calls.length > 0 ? "tool_calls" : "stop",
    };
  }
}

let served: Served | undefined;
let server: NodeServer | undefined;
afterEach(async () => {
  await server?.close();
  await served?.close();
  served = undefined;
  server = undefined;
});

/** Every chunk of a UI message stream body, validated by ai's own parser. */
async function chunksOf(body: string): Promise<{ type: string; [key: string]: unknown }[]> {
  const out: { type: string; [key: string]: unknown }[] = [];
  const parsed = parseJsonEventStream({
    stream: new Response(body).body as ReadableStream<Uint8Array>,
    schema: uiMessageChunkSchema,
  });
  for await (const chunk of parsed as unknown as AsyncIterable<{
    success: boolean;
    value: { type: string };
  }>) {
    expect(chunk.success).toBe(true);
    out.push(chunk.value);
  }
  return out;
}

describe("streamed pieces: secrets split across them, and tool arguments", () => {
  it("a secret split across two text deltas never reaches the client, at every split position", async () => {
    // One answer holds the secret once per split position, each time cut in two between deltas.
    const pieces: Piece[] = [{ text: "Keys: " }];
    for (let at = 1; at < SECRET.length; at++)
      pieces.push({ text: `(${at}) ${SECRET.slice(0, at)}` }, { text: `${SECRET.slice(at)} ok. ` });
    served = serve({
      agents: { leaky: () => ({ model: new PiecesModel(pieces) }) },
      redaction: { secrets: [SECRET] },
    });
    const chat = new TestChat(served, { id: "split", token: ALICE });
    await chat.sendMessage({ text: "tell me the keys" });
    expect(chat.errors).toEqual([]);
    const expected = ["Keys: "];
    for (let at = 1; at < SECRET.length; at++) expected.push(`(${at}) [REDACTED] ok. `);
    expect(chat.lastText).toBe(expected.join(""));

    // The raw bytes of the stream (a replay of the stored run) carry no piece of the secret either.
    const runId = (chat.messages.at(-1) as UIMessage).id.replace(/:assistant$/, "");
    const raw = await (await served.fetch(`/api/runs/${runId}/stream`, { headers: auth })).text();
    expect(fragments(SECRET).filter((f) => raw.includes(f))).toEqual([]);
    expect((await chunksOf(raw)).filter((c) => c.type === "text-delta").length).toBeGreaterThan(
      SECRET.length,
    );
  });

  it("the stream stays incremental: the first words arrive while the model is still answering", async () => {
    const gate = new Gate();
    served = serve({
      agents: {
        paced: () => ({
          model: new PiecesModel([
            { text: "alpha beta gamma delta epsilon zeta " },
            { wait: gate },
            { text: "eta." },
          ]),
        }),
      },
      redaction: { secrets: [SECRET] },
    });
    const res = await served.fetch("/api/chat", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        id: "inc",
        messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "go" }] }],
      }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let seen = "";
    await gate.reached;
    // Before the model goes on, the words the held tail does not need have reached the client.
    while (!seen.includes('"delta":"alpha beta '))
      seen += new TextDecoder().decode((await reader.read()).value);
    expect(seen).not.toContain("eta.");
    gate.open();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += new TextDecoder().decode(value);
    }
    const text = (await chunksOf(seen))
      .filter((c) => c.type === "text-delta")
      .map((c) => c.delta)
      .join("");
    expect(text).toBe("alpha beta gamma delta epsilon zeta eta.");
  });

  it("tool arguments stream in pieces to useChat (tool-input-start, -delta, -available), a split secret scrubbed", async () => {
    const args = `{"order":"A-1","note":"key ${SECRET} here"}`;
    const cut = args.indexOf(SECRET) + 7;
    const pieces: Piece[] = [
      { text: "Looking it up." },
      { args: "", id: "call_1", name: "lookup" },
      { args: args.slice(0, 10) },
      { args: args.slice(10, cut) },
      { args: args.slice(cut) },
    ];
    const model = () => new PiecesModel(pieces, [{ id: "call_1", name: "lookup", arguments: args }]);
    served = serve({
      agents: { tools: () => ({ model: model(), tools: [lookup] }) },
      redaction: { secrets: [SECRET] },
    });
    const chat = new TestChat(served, { id: "args", token: ALICE });
    await chat.sendMessage({ text: "find A-1" });
    expect(chat.errors).toEqual([]);
    const answer = chat.messages.at(-1) as UIMessage;
    const call = answer.parts.find((p) => p.type === "tool-lookup") as Record<string, unknown>;
    expect(call.state).toBe("output-available");
    expect(call.input).toEqual({ order: "A-1", note: "key [REDACTED] here" });

    const runId = answer.id.replace(/:assistant$/, "");
    const raw = await (await served.fetch(`/api/runs/${runId}/stream`, { headers: auth })).text();
    expect(fragments(SECRET).filter((f) => raw.includes(f))).toEqual([]);
    const chunks = (await chunksOf(raw)).filter((c) => String(c.type).startsWith("tool-input"));
    expect(chunks.map((c) => c.type)).toEqual([
      "tool-input-start",
      ...chunks.slice(1, -1).map(() => "tool-input-delta"),
      "tool-input-available",
    ]);
    const deltas = chunks.filter((c) => c.type === "tool-input-delta").map((c) => c.inputTextDelta as string);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(`{"order":"A-1","note":"key [REDACTED] here"}`);
  });

  it("AG-UI: streamed arguments are TOOL_CALL_ARGS deltas between START and END", async () => {
    const args = '{"order":"B-22"}';
    const pieces: Piece[] = [
      { args: "", id: "call_b", name: "lookup" },
      { args: '{"order":' },
      { args: '"B-22"' },
      { args: "}" },
    ];
    served = serve({
      agents: {
        tools: () => ({
          model: new PiecesModel(pieces, [{ id: "call_b", name: "lookup", arguments: args }]),
          tools: [lookup],
        }),
      },
    });
    server = await startServer({ handler: served.handler });
    const agent = new HttpAgent({ url: `${server.url}api/agui/tools`, headers: auth, threadId: "agui-args" });
    const events: { type: string; [key: string]: unknown }[] = [];
    agent.addMessage({ id: "u1", role: "user", content: "find B-22" });
    await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event as never) });
    const calls = events.filter((e) => e.type.startsWith("TOOL_CALL_") && e.type !== "TOOL_CALL_RESULT");
    expect(calls[0]).toMatchObject({ type: "TOOL_CALL_START", toolCallId: "call_b", toolCallName: "lookup" });
    expect(calls.at(-1)).toMatchObject({ type: "TOOL_CALL_END", toolCallId: "call_b" });
    const argDeltas = calls.filter((e) => e.type === "TOOL_CALL_ARGS").map((e) => e.delta as string);
    expect(argDeltas.length).toBeGreaterThan(1);
    expect(argDeltas.join("")).toBe(args);
    const toolCall = agent.messages
      .flatMap((m) => ("toolCalls" in m ? (m.toolCalls ?? []) : []))
      .find((c) => c.id === "call_b");
    expect(toolCall?.function.arguments).toBe(args);
  });

  it("a streamed call the response does not keep ends as an input error, not a call left streaming", async () => {
    const pieces: Piece[] = [
      { args: '{"order":"X', id: "call_lost", name: "lookup" },
      { args: '{"order":"Y"}', id: "call_kept", name: "lookup", index: 1 },
    ];
    served = serve({
      agents: {
        tools: () => ({
          model: new PiecesModel(pieces, [{ id: "call_kept", name: "lookup", arguments: '{"order":"Y"}' }]),
          tools: [lookup],
        }),
      },
    });
    const chat = new TestChat(served, { id: "lost", token: ALICE });
    await chat.sendMessage({ text: "go" });
    expect(chat.errors).toEqual([]);
    const parts = (chat.messages.at(-1) as UIMessage).parts.filter((p) => p.type === "tool-lookup") as Record<
      string,
      unknown
    >[];
    expect(parts.map((p) => [p.toolCallId, p.state])).toEqual([
      ["call_lost", "output-error"],
      ["call_kept", "output-available"],
    ]);
    // The stored chat (what a reload shows) agrees.
    const stored = (await (await served.fetch("/api/chats/lost", { headers: auth })).json()) as {
      messages: UIMessage[];
    };
    const storedParts = (stored.messages.at(-1) as UIMessage).parts.filter(
      (p) => p.type === "tool-lookup",
    ) as Record<string, unknown>[];
    expect(storedParts.map((p) => [p.toolCallId, p.state])).toEqual([
      ["call_lost", "output-error"],
      ["call_kept", "output-available"],
    ]);
  });
});
