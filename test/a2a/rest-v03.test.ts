/**
 * `@a2a-js/sdk`'s v0.3 REST transport (`LegacyRestTransport`: v0.3's HTTP+JSON binding, proto
 * JSON under `/v1/...`) against glassloop's A2A server: send, stream, get with history, answer
 * input-required, cancel, subscribe, push configs and the extended card; errors as v0.3's
 * `{ code, message }` bodies the SDK turns into its typed errors; only the caller's own tasks.
 */
import { Role, type StreamResponse, TaskState } from "@a2a-js/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { FunctionModel } from "../../src/testing.js";
import { echo, lastUser, stuck, support, typed } from "./fixtures/agents.js";
import { ALICE, BOB, type Running, sdkRestClient, serveA2A, withToken } from "./harness.js";

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

type SdkTask = {
  id: string;
  contextId: string;
  status: { state: number };
  artifacts: { parts: { content?: { $case: string; value: unknown } }[] }[];
  history: { messageId: string; role: number }[];
};

const text = (value: string, extra: Record<string, unknown> = {}) => ({
  message: {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value } }],
    ...extra,
  },
});

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const event of stream) out.push(event);
  return out;
}

const slow = () => ({
  model: new FunctionModel((r) => ({ text: `late: ${lastUser(r.messages as never)}`, delayMs: 300 })),
});

describe("@a2a-js/sdk's v0.3 REST transport against glassloop's A2A server", () => {
  it("uses the v0.3 transport: sends, streams and gets over /v1/ paths in proto JSON", async () => {
    running = await serveA2A({ agents: { echo, typed } });
    const seen: string[] = [];
    const client = await sdkRestClient(`${running.url}/a2a/echo/`, ALICE, true, seen);
    const sent = (await client.sendMessage({
      ...text("over v0.3 rest"),
      configuration: { returnImmediately: false },
    } as never)) as unknown as SdkTask;
    expect(sent.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sent.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "echo: over v0.3 rest" });

    const events = await collect(client.sendMessageStream(text("streamed") as never));
    expect(events[0]?.payload?.$case).toBe("task");
    const last = events.at(-1)?.payload;
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(events.some((e) => e.payload?.$case === "artifactUpdate")).toBe(true);

    const got = (await client.getTask({ id: sent.id, historyLength: 1 } as never)) as unknown as SdkTask;
    expect(got.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.history).toHaveLength(1);
    expect(got.history[0]?.role).toBe(Role.ROLE_AGENT);
    // ListTasks has no v0.3 HTTP+JSON binding: the SDK refuses it itself.
    await expect(client.listTasks({} as never)).rejects.toThrow();
    expect(seen).toEqual([
      "POST /a2a/echo/v1/message:send",
      "POST /a2a/echo/v1/message:stream",
      `GET /a2a/echo/v1/tasks/${sent.id}`,
    ]);

    // The wire itself: a /v1/ path, v0.3's proto JSON (content, TASK_STATE_COMPLETED), a typed
    // result as a nested data part.
    const res = await withToken(ALICE)(`${running.url}/a2a/typed/v1/message:send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        message: { messageId: "m-typed", role: "ROLE_USER", content: [{ text: "total?" }] },
        configuration: { blocking: true },
      }),
    });
    const body = (await res.json()) as {
      task: {
        status: { state: string };
        artifacts: { parts: unknown[] }[];
        history: { content: unknown[] }[];
      };
    };
    expect(body.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(body.task.artifacts[0]?.parts[0]).toEqual({ data: { data: { total: 42, currency: "EUR" } } });
    expect(body.task.history[0]?.content).toEqual([{ text: "total?" }]);
  });

  it("does not block unless asked (proto JSON's blocking is false when left out)", async () => {
    running = await serveA2A({ agents: { slow } });
    const res = await withToken(ALICE)(`${running.url}/a2a/slow/v1/message:send`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ message: { messageId: "m-now", role: "ROLE_USER", content: [{ text: "hi" }] } }),
    });
    const body = (await res.json()) as { task: { status: { state: string } } };
    expect(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"]).toContain(body.task.status.state);
  });

  it("answers input-required on the same task, cancels (CANCELLED), and subscribes", async () => {
    running = await serveA2A({ agents: { support, stuck, slow } });
    const client = await sdkRestClient(`${running.url}/a2a/support/`, ALICE, true);
    const waiting = (await client.sendMessage({
      ...text("refund A-1001"),
      configuration: { returnImmediately: false },
    } as never)) as unknown as SdkTask;
    expect(waiting.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = (await client.sendMessage({
      message: {
        messageId: "m-approve",
        role: Role.ROLE_USER,
        taskId: waiting.id,
        parts: [{ content: { $case: "data", value: { approved: true } } }],
      },
      configuration: { returnImmediately: false },
    } as never)) as unknown as SdkTask;
    expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.history.map((m) => m.role)).toEqual([
      Role.ROLE_USER,
      Role.ROLE_AGENT,
      Role.ROLE_USER,
      Role.ROLE_AGENT,
    ]);
    expect(done.history[2]?.messageId).toBe("m-approve");

    const stuckClient = await sdkRestClient(`${running.url}/a2a/stuck/`, ALICE, true);
    const working = (await stuckClient.sendMessage({
      ...text("wait"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as SdkTask;
    const canceled = (await stuckClient.cancelTask({ id: working.id } as never)) as unknown as SdkTask;
    expect(canceled.status.state).toBe(TaskState.TASK_STATE_CANCELED);
    const raw = await withToken(ALICE)(`${running.url}/a2a/stuck/v1/tasks/${working.id}`);
    expect(((await raw.json()) as { status: { state: string } }).status.state).toBe("TASK_STATE_CANCELLED");

    const slowClient = await sdkRestClient(`${running.url}/a2a/slow/`, ALICE, true);
    const started = (await slowClient.sendMessage({
      ...text("later"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as SdkTask;
    const events = await collect(slowClient.resubscribeTask({ id: started.id } as never));
    expect(events[0]?.payload?.$case).toBe("task");
    const end = events.at(-1)?.payload;
    expect(end?.$case === "statusUpdate" && end.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("sets, gets, lists and deletes push configs by their /v1/ resource paths", async () => {
    running = await serveA2A({
      agents: { stuck },
      a2a: { push: { allow: ["https://hooks.example.com/"] } },
    });
    const client = await sdkRestClient(`${running.url}/a2a/stuck/`, ALICE, true);
    const task = (await client.sendMessage({
      ...text("wait"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as SdkTask;
    const set = await client.createTaskPushNotificationConfig({
      taskId: task.id,
      id: "hook-1",
      url: "https://hooks.example.com/a2a",
      token: "t-1",
    } as never);
    expect(set).toMatchObject({ taskId: task.id, id: "hook-1", url: "https://hooks.example.com/a2a" });
    const got = await client.getTaskPushNotificationConfig({ taskId: task.id, id: "hook-1" } as never);
    expect(got).toMatchObject({ id: "hook-1", token: "t-1" });
    const listed = await client.listTaskPushNotificationConfig({ taskId: task.id } as never);
    expect(listed.configs.map((c) => c.id)).toEqual(["hook-1"]);
    await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: "hook-1" } as never);
    const after = await client.listTaskPushNotificationConfig({ taskId: task.id } as never);
    expect(after.configs).toEqual([]);
    // Off the allow-list: v0.3's error body, read by the SDK as a typed error.
    await expect(
      client.createTaskPushNotificationConfig({
        taskId: task.id,
        url: "https://evil.example.net/x",
      } as never),
    ).rejects.toThrow(/allow-list/);
    await client.cancelTask({ id: task.id } as never);
  });

  it("serves the extended card at /v1/card, and keeps tasks to their owner", async () => {
    running = await serveA2A({
      agents: { echo },
      a2a: { cards: { echo: { description: "Echoes.", extended: { description: "Echoes, for callers." } } } },
    });
    const client = await sdkRestClient(`${running.url}/a2a/echo/`, ALICE, true);
    const card = await client.getAgentCard();
    expect(card.description).toBe("Echoes, for callers.");
    const sent = (await client.sendMessage(text("mine") as never)) as unknown as SdkTask;

    const bob = await sdkRestClient(`${running.url}/a2a/echo/`, BOB, true);
    await expect(bob.getTask({ id: sent.id } as never)).rejects.toThrow(/not found/i);
    const res = await withToken(BOB)(`${running.url}/a2a/echo/v1/tasks/${sent.id}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: -32001, message: `task not found: ${sent.id}` });
    const anonymous = await fetch(`${running.url}/a2a/echo/v1/tasks/${sent.id}`);
    expect(anonymous.status).toBe(401);
  });
});
