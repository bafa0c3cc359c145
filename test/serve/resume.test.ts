import type { UIMessage } from "ai";
import { parseJsonEventStream, uiMessageChunkSchema } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { ALICE, parseSse, SERVE_BACKENDS, type Served, serveOn, TestChat, until } from "./harness.js";
import { SlowModel, words } from "./slow-model.js";

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const auth = { authorization: `Bearer ${ALICE}` };
const slow = (count: number, delayMs: number) => () => ({ model: new SlowModel(count, delayMs) });

/** Reads an SSE body to its end as text. */
async function readAll(res: Response): Promise<string> {
  return await res.text();
}

for (const backend of SERVE_BACKENDS)
  describe.skipIf(backend.skip !== undefined)(`resuming a run's stream (${backend.name})`, () => {
    it("a page reload mid-answer (useChat resume) continues the same message with no gap and no duplicate", async () => {
      served = await serveOn(backend, { agents: { slow: slow(60, 5) } });
      const first = new TestChat(served, { id: "reload", token: ALICE });
      const sent = first.sendMessage({ text: "talk" });
      await until(() => first.lastText.length > 20);
      await first.stop(); // the tab goes away; the run goes on in the server
      await sent;
      expect(first.lastText.length).toBeLessThan(words(60).length);

      // The reloaded page: the server's messages, then useChat's resume (GET /api/chat/:id/stream).
      const loaded = (await (await served.fetch("/api/chats/reload", { headers: auth })).json()) as {
        messages: UIMessage[];
        activeRun: { runId: string } | null;
      };
      expect(loaded.activeRun).not.toBeNull();
      expect(loaded.messages.map((m) => m.role)).toEqual(["user"]);
      const second = new TestChat(served, { id: "reload", token: ALICE, messages: loaded.messages });
      await second.resumeStream();
      expect(second.errors).toEqual([]);
      expect(second.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(second.lastText).toBe(words(60));
      // Once the run ended, there is nothing to resume: 204.
      const after = await served.fetch("/api/chat/reload/stream", { headers: auth });
      expect(after.status).toBe(204);
    });

    it("Last-Event-ID continues exactly after the last event seen, parsed by ai's own SSE parser", async () => {
      served = await serveOn(backend, { agents: { slow: slow(40, 3) } });
      const res = await served.fetch("/api/chat", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({
          id: "lei",
          messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "go" }] }],
        }),
      });
      const runId = res.headers.get("x-glassloop-run-id") as string;
      // Read a few events, then drop the connection.
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let head = "";
      while (parseSse(head).filter((e) => e.id).length < 8)
        head += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      const seen = parseSse(head);
      const lastId = [...seen].reverse().find((e) => e.id)?.id as string;
      const kept = seen.slice(0, seen.findIndex((e) => e.id === lastId) + 1);

      const rest = await readAll(
        await served.fetch("/api/chat/lei/stream", { headers: { ...auth, "last-event-id": lastId } }),
      );
      const whole = await readAll(await served.fetch(`/api/runs/${runId}/stream`, { headers: auth }));
      const joined = [...kept, ...parseSse(rest)].map((e) => e.data);
      expect(joined).toEqual(parseSse(whole).map((e) => e.data));
      expect(parseSse(whole).at(-1)?.data).toBe("[DONE]");

      // ai's parser (what DefaultChatTransport uses) validates every chunk of the replay.
      const chunks = parseJsonEventStream({
        stream: new Response(whole).body as ReadableStream<Uint8Array>,
        schema: uiMessageChunkSchema,
      });
      const types: string[] = [];
      for await (const chunk of chunks as unknown as AsyncIterable<{
        success: boolean;
        value?: { type: string };
      }>) {
        expect(chunk.success).toBe(true);
        types.push(chunk.value?.type as string);
      }
      expect(types[0]).toBe("start");
      expect(types.at(-1)).toBe("finish");
      expect(types.filter((t) => t === "text-delta")).toHaveLength(40);
    });

    it("1,000 reconnects to one run each get exactly the events after their Last-Event-ID", async () => {
      served = await serveOn(backend, {
        agents: { slow: slow(200, 1) },
        limits: { requestsPerMinute: 100_000 },
      });
      const chat = new TestChat(served, { id: "many", token: ALICE });
      await chat.sendMessage({ text: "go" });
      const runs = (await (await served.fetch("/api/chats/many", { headers: auth })).json()) as {
        messages: UIMessage[];
      };
      const runId = (runs.messages[0] as UIMessage).id.replace(/:user$/, "");
      const whole = parseSse(
        await readAll(await served.fetch(`/api/runs/${runId}/stream`, { headers: auth })),
      );
      const ids = whole.filter((e) => e.id).map((e) => e.id as string);
      const reconnects = Array.from({ length: 1000 }, (_, i) => ids[(i * 7919) % ids.length] as string);
      const results = await Promise.all(
        reconnects.map(async (id) => {
          const text = await readAll(
            (await served?.fetch(`/api/runs/${runId}/stream`, {
              headers: { ...auth, "last-event-id": id },
            })) as Response,
          );
          return { id, events: parseSse(text).map((e) => e.data) };
        }),
      );
      for (const { id, events } of results) {
        const from = whole.findIndex((e) => e.id === id) + 1;
        expect(events).toEqual(whole.slice(from).map((e) => e.data));
      }
    }, 120_000);

    it("a second tab reading the same run live sees the same events as the first", async () => {
      served = await serveOn(backend, { agents: { slow: slow(50, 10) } });
      const tab1 = new TestChat(served, { id: "tabs", token: ALICE });
      const sent = tab1.sendMessage({ text: "go" });
      // The assistant's message has begun (the user's own "go" is text too).
      await until(() => tab1.messages.at(-1)?.role === "assistant" && tab1.lastText.length > 0);
      const tab2 = new TestChat(served, {
        id: "tabs",
        token: ALICE,
        messages: [{ id: "x", role: "user", parts: [{ type: "text", text: "go" }] }],
      });
      await Promise.all([sent, tab2.resumeStream()]);
      expect(tab1.lastText).toBe(words(50));
      expect(tab2.lastText).toBe(words(50));
    });
  });
