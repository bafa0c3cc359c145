import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import { afterEach, describe, expect, it } from "vitest";
import { type NodeServer, startServer } from "../../src/serve/index.js";
import {
  ALICE,
  lastUser,
  lookup,
  modelOf,
  refund,
  SERVE_BACKENDS,
  type ServeBackend,
  type Served,
  serveOn,
} from "./harness.js";

const id = () => `call_${randomUUID().slice(0, 8)}`;

const support = () => ({
  tools: [lookup, refund],
  model: modelOf((messages) => {
    if (messages.at(-1)?.role === "tool") return { text: "All done." };
    const text = lastUser(messages);
    if (text.includes("refund"))
      return { toolCalls: [{ id: id(), name: "refund", args: { order: "A", amount: 5 } }] };
    return { text: "Checking.", toolCalls: [{ id: id(), name: "lookup", args: { order: "A" } }] };
  })(),
});

let served: Served | undefined;
let server: NodeServer | undefined;
afterEach(async () => {
  await server?.close();
  await served?.close();
  served = undefined;
  server = undefined;
});

/** The real HttpAgent over HTTP against the served agent; records every event it receives. */
async function agentFor(backend: ServeBackend, threadId: string) {
  served = await serveOn(backend, { agents: { support } });
  server = await startServer({ handler: served.handler });
  const agent = new HttpAgent({
    url: `${server.url}api/agui/support`,
    headers: { authorization: `Bearer ${ALICE}` },
    threadId,
  });
  const events: { type: string; [key: string]: unknown }[] = [];
  const subscriber = { onEvent: ({ event }: { event: { type: string } }) => void events.push(event) };
  return { agent, events, subscriber };
}

for (const backend of SERVE_BACKENDS)
  describe.skipIf(backend.skip !== undefined)(
    `AG-UI: @ag-ui/client's HttpAgent runs a glassloop agent unchanged (${backend.name})`,
    () => {
      it("streams a run in order: RUN_STARTED, steps, text, a tool call and its result, RUN_FINISHED", async () => {
        const { agent, events, subscriber } = await agentFor(backend, "thread-1");
        agent.addMessage({ id: "u1", role: "user", content: "where is order A?" });
        await agent.runAgent({}, subscriber);
        const types = events.map((e) => e.type);
        expect(types[0]).toBe("RUN_STARTED");
        expect(types.at(-1)).toBe("RUN_FINISHED");
        const order = [
          "STEP_STARTED",
          "TEXT_MESSAGE_START",
          "TEXT_MESSAGE_CONTENT",
          "TEXT_MESSAGE_END",
          "TOOL_CALL_START",
          "TOOL_CALL_ARGS",
          "TOOL_CALL_END",
          "TOOL_CALL_RESULT",
          "STEP_FINISHED",
        ];
        let at = 0;
        for (const type of types) if (type === order[at]) at++;
        expect(at).toBe(order.length);
        expect(types).toContain("STATE_SNAPSHOT");
        const finished = events.at(-1) as { outcome?: { type: string }; result?: unknown };
        expect(finished.outcome?.type).toBe("success");
        expect(finished.result).toBe("All done.");
        // The agent's own message list is built from the events by the client.
        const roles = agent.messages.map((m) => m.role);
        expect(roles).toContain("tool");
        expect(agent.messages.at(-1)?.content).toBe("All done.");
      });

      it("an approval is an interrupt; the next run's resume entry approves it and the run finishes", async () => {
        const { agent, events, subscriber } = await agentFor(backend, "thread-2");
        agent.addMessage({ id: "u1", role: "user", content: "refund order A" });
        await agent.runAgent({}, subscriber);
        const paused = events.at(-1) as {
          type: string;
          outcome: { type: string; interrupts: { id: string; reason: string; toolCallId: string }[] };
        };
        expect(paused.type).toBe("RUN_FINISHED");
        expect(paused.outcome.type).toBe("interrupt");
        const interrupt = paused.outcome.interrupts[0] as { id: string; reason: string; toolCallId: string };
        expect(interrupt.reason).toBe("tool_approval");
        events.length = 0;
        await agent.runAgent(
          { resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }] },
          subscriber,
        );
        const result = events.find((e) => e.type === "TOOL_CALL_RESULT") as unknown as {
          toolCallId: string;
          content: string;
        };
        expect(result.toolCallId).toBe(interrupt.toolCallId);
        expect(result.content).toBe("refunded 5 on A");
        expect((events.at(-1) as { outcome?: { type: string } }).outcome?.type).toBe("success");
      });

      it("a cancelled interrupt rejects the call: the tool never runs", async () => {
        const { agent, events, subscriber } = await agentFor(backend, "thread-3");
        agent.addMessage({ id: "u1", role: "user", content: "refund order A" });
        await agent.runAgent({}, subscriber);
        const interrupt = (events.at(-1) as unknown as { outcome: { interrupts: { id: string }[] } }).outcome
          .interrupts[0] as { id: string };
        events.length = 0;
        await agent.runAgent({ resume: [{ interruptId: interrupt.id, status: "cancelled" }] }, subscriber);
        const result = events.find((e) => e.type === "TOOL_CALL_RESULT") as unknown as { content: string };
        expect(result.content).toBe("Not approved by the user.");
      });
    },
  );
