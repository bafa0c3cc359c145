/**
 * `handler.drain()`, the library's side of a rolling restart, with two handlers on one log (as
 * two processes): the draining one answers 503 with Retry-After, lets the run in progress finish
 * its step (the tool call runs to its result and is checkpointed), hands the run over at the next
 * step and ends its client's stream; the other handler continues the run from there, so the tool
 * ran once, and the client reconnecting there reads exactly the rest.
 */
import { tool } from "glassloop";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { chunksOf, idsOf, readRun, type SseEvent, textOf } from "../helpers/serve-client.js";
import { ALICE, modelOf, parseSse, SERVE_BACKENDS, type Served, served } from "./harness.js";

const open: Served[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

let lookups = 0;
const slowLookup = tool({
  name: "slow_lookup",
  description: "Looks something up, slowly.",
  input: z.object({}),
  run: async () => {
    lookups++;
    await new Promise((r) => setTimeout(r, 400));
    return "found it";
  },
});

const agents = {
  steps: () => ({
    tools: [slowLookup],
    model: modelOf((messages) =>
      messages.at(-1)?.role === "tool"
        ? { text: "Done after the lookup." }
        : { toolCalls: [{ id: "call_lookup", name: "slow_lookup", args: {} }] },
    )(),
  }),
};

const headers = { authorization: `Bearer ${ALICE}`, "content-type": "application/json" };
const turn = (chatId: string) =>
  JSON.stringify({
    id: chatId,
    agent: "steps",
    messages: [{ role: "user", parts: [{ type: "text", text: "go" }] }],
  });

describe.each(SERVE_BACKENDS)("drain: $name", (backend) => {
  if (backend.skip) {
    it.skip(backend.skip, () => {});
    return;
  }

  it("refuses new work with 503, hands the run over at its next step, and the other handler finishes it", async () => {
    const place = await backend.fresh();
    const make = async () => {
      const { store, log, close } = await place.open();
      const s = served({ agents, leaseMs: 10_000 }, store, log, close);
      open.push(s);
      return s;
    };
    const [a, b] = [await make(), await make()];
    lookups = 0;
    const res = await a.fetch("/api/chat", { method: "POST", headers, body: turn("drained") });
    const runId = res.headers.get("x-glassloop-run-id") as string;
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const events = (): SseEvent[] => parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2));
    while (!events().some((e) => e.data.includes('"tool-input-available"')))
      text += decoder.decode((await reader.read()).value, { stream: true });

    // The tool is running: the drain lets it finish, and hands the run over before the next model call.
    const drained = a.handler.drain(5_000);
    const refused = await a.fetch("/api/chat", { method: "POST", headers, body: turn("another") });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(((await refused.json()) as { code: string }).code).toBe("draining");
    await drained;
    expect(a.handler.stats().runs).toBe(0);

    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const seen = parseSse(text);
    // The client's stream ends without the protocol's end, after the tool's result.
    expect(seen.at(-1)?.data).not.toBe("[DONE]");
    expect(chunksOf(seen).some((c) => c.type === "tool-output-available")).toBe(true);

    // The client reconnects to B (the load balancer's other replica) with its Last-Event-ID.
    const lastSeen = idsOf(seen).at(-1) as string;
    const rest = await readRun("/", ALICE, runId, lastSeen, b.fetch);
    expect(rest.at(-1)?.data).toBe("[DONE]");
    expect(chunksOf(rest).at(-1)?.messageMetadata?.status).toBe("ok");
    expect(textOf(rest)).toBe("Done after the lookup.");
    const whole = await readRun("/", ALICE, runId, undefined, b.fetch);
    expect([...idsOf(seen), ...idsOf(rest)]).toEqual(idsOf(whole));
    // The step in flight reached its checkpoint before the hand-over: the tool ran once, not twice.
    expect(lookups).toBe(1);
  }, 30_000);
});
