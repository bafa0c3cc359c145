/**
 * `@a2a-js/sdk`'s own client (1.3.0: spec 1.0 over JSON-RPC, and its v0.3 compat transport)
 * against glassloop's A2A server: card, send, stream, get, cancel, input-required answered,
 * subscribe, ownership, and the HTTP-level refusals (no token, oversized body).
 */
import { Role, type StreamResponse, TaskState } from "@a2a-js/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { FunctionModel } from "../../src/testing.js";
import { echo, lastUser, stuck, support, typed } from "./fixtures/agents.js";
import { ALICE, BOB, type Running, sdkClient, serveA2A } from "./harness.js";

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

type SdkTask = {
  id: string;
  contextId: string;
  status: { state: number; message?: { parts: { content?: { $case: string; value: unknown } }[] } };
  artifacts: { artifactId: string; parts: { content?: { $case: string; value: unknown } }[] }[];
  history: unknown[];
};

const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts, ...extra },
});
const text = (value: string, extra: Record<string, unknown> = {}) =>
  message([{ content: { $case: "text", value } }], extra);
const data = (value: unknown, extra: Record<string, unknown> = {}) =>
  message([{ content: { $case: "data", value } }], extra);

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

/** A model that answers after `ms`, so a client can subscribe while the task works. */
const slow = (ms: number) => () => ({
  model: new FunctionModel((r) => ({ text: `late: ${lastUser(r.messages as never)}`, delayMs: ms })),
});

describe("@a2a-js/sdk's client (spec 1.0) against glassloop's A2A server", () => {
  it("reads the card and sends a message: the task completes with the answer as its result artifact", async () => {
    running = await serveA2A({ agents: { echo } });
    const client = await sdkClient(`${running.url}/a2a/echo/`, ALICE);
    const card = await client.getAgentCard();
    expect(card.name).toBe("echo");
    expect(card.capabilities?.streaming).toBe(true);
    expect(Object.keys(card.securitySchemes)).toEqual(["bearer"]);
    expect(card.skills.map((s) => s.id)).toEqual(["echo"]);
    const task = (await client.sendMessage(text("hello") as never)) as unknown as SdkTask;
    expect(task.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "echo: hello" });
  });

  it("streams a task: the task first, working updates with the text, the result artifact, then completed", async () => {
    running = await serveA2A({ agents: { echo } });
    const client = await sdkClient(`${running.url}/a2a/echo/`, ALICE);
    const events = await collect(client.sendMessageStream(text("stream me") as never));
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe("task");
    expect(kinds).toContain("artifactUpdate");
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe("statusUpdate");
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const artifact = events.find((e) => e.payload?.$case === "artifactUpdate")?.payload;
    expect(artifact?.$case === "artifactUpdate" && artifact.value.artifact?.parts[0]?.content).toEqual({
      $case: "text",
      value: "echo: stream me",
    });
  });

  it("returns typed output as a data artifact", async () => {
    running = await serveA2A({ agents: { typed } });
    const client = await sdkClient(`${running.url}/a2a/typed/`, ALICE);
    const task = (await client.sendMessage(text("total?") as never)) as unknown as SdkTask;
    expect(task.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({
      $case: "data",
      value: { total: 42, currency: "EUR" },
    });
  });

  it("asks for input when a tool needs approval, and goes on when the caller approves on the same task", async () => {
    running = await serveA2A({ agents: { support } });
    const client = await sdkClient(`${running.url}/a2a/support/`, ALICE);
    const waiting = (await client.sendMessage(text("refund A-1001") as never)) as unknown as SdkTask;
    expect(waiting.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const asked = waiting.status.message?.parts.find((p) => p.content?.$case === "data")?.content?.value as {
      approvals: { toolName: string; input: unknown }[];
    };
    expect(asked.approvals).toEqual([
      expect.objectContaining({ toolName: "refund", input: { order: "A-1001" } }),
    ]);
    // Got again, the task still waits; then the answer on the same task resumes the same run.
    const got = (await client.getTask({ id: waiting.id } as never)) as unknown as SdkTask;
    expect(got.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = (await client.sendMessage(
      data({ approved: true }, { taskId: waiting.id, contextId: waiting.contextId }) as never,
    )) as unknown as SdkTask;
    expect(done.id).toBe(waiting.id);
    expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "done: refunded A-1001" });
  });

  it("takes a rejection in plain text, and the tool never runs", async () => {
    running = await serveA2A({ agents: { support } });
    const client = await sdkClient(`${running.url}/a2a/support/`, ALICE);
    const waiting = (await client.sendMessage(text("refund A-1001") as never)) as unknown as SdkTask;
    const done = (await client.sendMessage(
      text("reject", { taskId: waiting.id }) as never,
    )) as unknown as SdkTask;
    expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const answer = done.artifacts[0]?.parts[0]?.content?.value as string;
    expect(answer.startsWith("done: ")).toBe(true);
    expect(answer).not.toContain("refunded A-1001");
  });

  it("keeps the caller's messageId for its message in the task's history", async () => {
    running = await serveA2A({ agents: { echo } });
    const client = await sdkClient(`${running.url}/a2a/echo/`, ALICE);
    const messageId = `client-${crypto.randomUUID()}`;
    const sent = (await client.sendMessage({
      message: { messageId, role: Role.ROLE_USER, parts: [{ content: { $case: "text", value: "mine" } }] },
    } as never)) as unknown as SdkTask & { history: { messageId: string; role: number }[] };
    expect(sent.history[0]).toMatchObject({ messageId, role: Role.ROLE_USER });
    const got = (await client.getTask({ id: sent.id } as never)) as unknown as typeof sent;
    expect(got.history[0]?.messageId).toBe(messageId);
  });

  it("gets a task with its history cut to historyLength", async () => {
    running = await serveA2A({ agents: { echo } });
    const client = await sdkClient(`${running.url}/a2a/echo/`, ALICE);
    const sent = (await client.sendMessage(text("remember") as never)) as unknown as SdkTask;
    const got = (await client.getTask({ id: sent.id, historyLength: 1 } as never)) as unknown as SdkTask;
    expect(got.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.history).toHaveLength(1);
    expect(got.artifacts).toEqual(sent.artifacts);
  });

  it("cancels a working task (its run is aborted) and refuses to cancel it twice", async () => {
    running = await serveA2A({ agents: { stuck } });
    const client = await sdkClient(`${running.url}/a2a/stuck/`, ALICE);
    const started = (await client.sendMessage({
      ...text("wait forever"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as SdkTask;
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(started.status.state);
    const cancelled = (await client.cancelTask({ id: started.id } as never)) as unknown as SdkTask;
    expect(cancelled.status.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(client.cancelTask({ id: started.id } as never)).rejects.toThrow(/cannot be canceled/);
  });

  it("subscribes to a working task and reads it to the end", async () => {
    running = await serveA2A({ agents: { slow: slow(300) } });
    const client = await sdkClient(`${running.url}/a2a/slow/`, ALICE);
    const started = (await client.sendMessage({
      ...text("later"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as SdkTask;
    const events = await collect(client.resubscribeTask({ id: started.id } as never));
    expect(events[0]?.payload?.$case).toBe("task");
    const last = events.at(-1)?.payload;
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("shows a caller only its own tasks: another caller's task id is not found, for every method", async () => {
    running = await serveA2A({ agents: { support } });
    const alice = await sdkClient(`${running.url}/a2a/support/`, ALICE);
    const bob = await sdkClient(`${running.url}/a2a/support/`, BOB);
    const task = (await alice.sendMessage(text("refund A-1001") as never)) as unknown as SdkTask;
    await expect(bob.getTask({ id: task.id } as never)).rejects.toThrow(/not found/i);
    await expect(bob.cancelTask({ id: task.id } as never)).rejects.toThrow(/not found/i);
    await expect(bob.sendMessage(data({ approved: true }, { taskId: task.id }) as never)).rejects.toThrow(
      /not found/i,
    );
    await expect(collect(bob.resubscribeTask({ id: task.id } as never))).rejects.toThrow(/not found/i);
    const still = (await alice.getTask({ id: task.id } as never)) as unknown as SdkTask;
    expect(still.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  });
});

describe("@a2a-js/sdk's v0.3 transport against glassloop's A2A server", () => {
  it("resubscribes to a working task with tasks/resubscribe and reads it to the end", async () => {
    running = await serveA2A({ agents: { slow: slow(300) } });
    const client = await sdkClient(`${running.url}/a2a/slow/`, ALICE, true);
    const started = (await client.sendMessage({
      ...text("later"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as SdkTask;
    const events = await collect(client.resubscribeTask({ id: started.id } as never));
    const last = events.at(-1)?.payload;
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("sends, streams, gets and cancels with message/send, message/stream, tasks/get, tasks/cancel", async () => {
    running = await serveA2A({ agents: { echo, stuck } });
    const client = await sdkClient(`${running.url}/a2a/echo/`, ALICE, true);
    const sent = (await client.sendMessage(text("old client") as never)) as unknown as SdkTask;
    expect(sent.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sent.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "echo: old client" });
    const events = await collect(client.sendMessageStream(text("old stream") as never));
    const last = events.at(-1)?.payload;
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const got = (await client.getTask({ id: sent.id } as never)) as unknown as SdkTask;
    expect(got.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const stuckClient = await sdkClient(`${running.url}/a2a/stuck/`, ALICE, true);
    const started = (await stuckClient.sendMessage({
      ...text("wait"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as SdkTask;
    const cancelled = (await stuckClient.cancelTask({ id: started.id } as never)) as unknown as SdkTask;
    expect(cancelled.status.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});

describe("the A2A endpoint over HTTP", () => {
  it("refuses a call without a token (401), serves the card without one, and caps the body (413)", async () => {
    running = await serveA2A({ agents: { echo }, limits: { maxBodyBytes: 10_000 } });
    const card = await fetch(`${running.url}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    expect(((await card.json()) as { name: string }).name).toBe("echo");
    const rpc = (body: string, token?: string) =>
      fetch(`${running?.url}/a2a/echo`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
        body,
      });
    const anonymous = await rpc(
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
    );
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toContain("Bearer");
    const big = await rpc(
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "SendMessage", params: { pad: "x".repeat(20_000) } }),
      ALICE,
    );
    expect(big.status).toBe(413);
    const unknown = await rpc(
      JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ListAgents", params: {} }),
      ALICE,
    );
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(-32601);
    const other = await fetch(`${running.url}/api/agents`, { headers: { authorization: `Bearer ${ALICE}` } });
    expect(other.status).toBe(404);
  });
});
