/**
 * Two servers on one log (SQLite files, or one Postgres schema), each with its own connections,
 * as two processes behind a load balancer: a client that reconnects to the other server continues
 * the run with no gap and no duplicate, an approval or a cancel sent to either server acts on the
 * run wherever it is driven, and the other server follows runs it does not drive.
 */
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import {
  ALICE,
  lastUser,
  modelOf,
  parseSse,
  refund,
  SERVE_BACKENDS,
  type ServeBackend,
  type Served,
  served,
} from "./harness.js";
import { SlowModel, words } from "./slow-model.js";

const open: Served[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

const auth = { authorization: `Bearer ${ALICE}` };
const post = { ...auth, "content-type": "application/json" };
const send = (chatId: string, agent: string, text: string) =>
  JSON.stringify({
    id: chatId,
    agent,
    messages: [{ id: "u", role: "user", parts: [{ type: "text", text }] }],
  });

const agents = {
  slow: () => ({ model: new SlowModel(60, 8) }),
  long: () => ({ model: new SlowModel(2_000, 10) }),
  refunds: () => ({
    tools: [refund],
    model: modelOf((messages) =>
      messages.at(-1)?.role === "tool"
        ? { text: "Refunded." }
        : lastUser(messages).includes("refund")
          ? {
              toolCalls: [
                { id: `call_${randomUUID().slice(0, 8)}`, name: "refund", args: { order: "A", amount: 5 } },
              ],
            }
          : { text: "?" },
    )(),
  }),
};

/** Two handlers on one fresh database of `backend`, with short leases so cancels travel fast without notices. */
async function pair(backend: ServeBackend): Promise<[Served, Served]> {
  const place = await backend.fresh();
  const make = async () => {
    const { store, log, close } = await place.open();
    const s = served({ agents, leaseMs: 400 }, store, log, close);
    open.push(s);
    return s;
  };
  return [await make(), await make()];
}

/** Reads an SSE body until `enough` holds for the complete events read so far; the rest stays unread. */
async function readUntil(
  res: Response,
  enough: (events: { id?: string; data: string }[]) => boolean,
): Promise<{ events: { id?: string; data: string }[]; reader: ReadableStreamDefaultReader<Uint8Array> }> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const events = parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
    if (enough(events)) return { events, reader };
    const { value, done } = await reader.read();
    if (done) return { events: parseSse(text), reader };
    text += decoder.decode(value, { stream: true });
  }
}

const deltas = (events: { data: string }[]) =>
  events
    .filter((e) => e.data.startsWith("{"))
    .map((e) => JSON.parse(e.data) as { type: string; delta?: string })
    .filter((c) => c.type === "text-delta")
    .map((c) => c.delta)
    .join("");
const lastId = (events: { id?: string }[]) => events.filter((e) => e.id !== undefined).at(-1)?.id as string;
const finishOf = (events: { data: string }[]) =>
  events
    .filter((e) => e.data.startsWith("{"))
    .map((e) => JSON.parse(e.data) as { type: string; messageMetadata?: { status?: string } })
    .filter((c) => c.type === "finish")
    .at(-1);

for (const backend of SERVE_BACKENDS)
  describe.skipIf(backend.skip !== undefined)(`two servers on one log (${backend.name})`, () => {
    it("a client that reconnects to the other server continues the run after its Last-Event-ID: no gap, no duplicate", async () => {
      const [a, b] = await pair(backend);
      const started = await a.fetch("/api/chat", {
        method: "POST",
        headers: post,
        body: send("c1", "slow", "go"),
      });
      const runId = started.headers.get("x-glassloop-run-id") as string;
      const head = await readUntil(started, (events) => deltas(events).split(" ").length > 8);
      await head.reader.cancel(); // the connection to server A drops

      const tail = await b.fetch("/api/chat/c1/stream", {
        headers: { ...auth, "last-event-id": lastId(head.events) },
      });
      expect(tail.status).toBe(200);
      const rest = parseSse(await tail.text());
      expect(rest.at(-1)?.data).toBe("[DONE]");
      expect(finishOf(rest)?.messageMetadata?.status).toBe("ok");
      expect(deltas(head.events) + deltas(rest)).toBe(words(60));

      // Stitched together, the two connections carried exactly the run's stored events, each once.
      const whole = parseSse(await (await b.fetch(`/api/runs/${runId}/stream`, { headers: auth })).text());
      const ids = (events: { id?: string }[]) => events.flatMap((e) => (e.id === undefined ? [] : [e.id]));
      expect([...ids(head.events), ...ids(rest)]).toEqual(ids(whole));
    });

    it("an approval sent to the other server resumes the run there, and the first server's client reads it to the end", async () => {
      const [a, b] = await pair(backend);
      const paused = parseSse(
        await (
          await a.fetch("/api/chat", {
            method: "POST",
            headers: post,
            body: send("c2", "refunds", "refund A"),
          })
        ).text(),
      );
      const request = paused
        .filter((e) => e.data.startsWith("{"))
        .map((e) => JSON.parse(e.data) as { type: string; approvalId?: string })
        .find((c) => c.type === "tool-approval-request");
      expect(finishOf(paused)?.messageMetadata?.status).toBe("awaiting_approval");
      const runId = lastId(paused).split("/")[0] as string;

      const decided = await b.fetch(`/api/runs/${runId}/approvals`, {
        method: "POST",
        headers: post,
        body: JSON.stringify({ decisions: [{ approvalId: request?.approvalId, approved: true }] }),
      });
      expect(decided.status).toBe(202);
      // The same decision again, on either server: already decided.
      for (const s of [a, b]) {
        const again = await s.fetch(`/api/runs/${runId}/approvals`, {
          method: "POST",
          headers: post,
          body: JSON.stringify({ decisions: [{ approvalId: request?.approvalId, approved: true }] }),
        });
        expect(again.status).toBe(409);
      }

      const rest = parseSse(
        await (
          await a.fetch(`/api/runs/${runId}/stream`, {
            headers: { ...auth, "last-event-id": lastId(paused) },
          })
        ).text(),
      );
      const chunks = rest
        .filter((e) => e.data.startsWith("{"))
        .map((e) => JSON.parse(e.data) as { type: string; output?: unknown });
      expect(chunks.find((c) => c.type === "tool-output-available")?.output).toBe("refunded 5 on A");
      expect(deltas(rest)).toBe("Refunded.");
      expect(finishOf(rest)?.messageMetadata?.status).toBe("ok");
      const chat = (await (await a.fetch("/api/chats/c2", { headers: auth })).json()) as {
        activeRun: unknown;
      };
      expect(chat.activeRun).toBeNull();
    });

    it("a cancel sent to the other server stops the run where it is driven", async () => {
      const [a, b] = await pair(backend);
      const started = await a.fetch("/api/chat", {
        method: "POST",
        headers: post,
        body: send("c3", "long", "go"),
      });
      const runId = started.headers.get("x-glassloop-run-id") as string;
      const head = await readUntil(started, (events) => deltas(events).length > 0);

      const cancelled = await b.fetch(`/api/runs/${runId}/cancel`, { method: "POST", headers: post });
      expect(cancelled.status).toBe(202);
      expect(((await cancelled.json()) as { status: string }).status).toBe("running");

      // Server A's client reads on: the run ends aborted long before its 2,000 words.
      const decoder = new TextDecoder();
      let text = "";
      for (;;) {
        const { value, done } = await head.reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      const rest = parseSse(text);
      expect(finishOf(rest)?.messageMetadata?.status).toBe("aborted");
      expect((deltas(head.events) + deltas(rest)).length).toBeLessThan(words(2_000).length);
      const run = (await (await b.fetch(`/api/runs/${runId}`, { headers: auth })).json()) as {
        status: string;
      };
      expect(run.status).toBe("aborted");
      const chat = (await (await b.fetch("/api/chats/c3", { headers: auth })).json()) as {
        activeRun: unknown;
      };
      expect(chat.activeRun).toBeNull();
    });
  });
