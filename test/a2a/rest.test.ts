/**
 * `@a2a-js/sdk`'s REST transport (spec 1.0's HTTP+JSON binding) against glassloop's A2A server:
 * send, stream, get, list, cancel, subscribe, input answered, push configs and the extended card,
 * each by path and verb; errors as the binding's error bodies; only the caller's own tasks.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Role, type StreamResponse, TaskState } from "@a2a-js/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { FunctionModel } from "../../src/testing.js";
import { echo, lastUser, stuck, support } from "./fixtures/agents.js";
import { ALICE, BOB, type Running, sdkRestClient, serveA2A } from "./harness.js";

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

describe("@a2a-js/sdk's REST transport against glassloop's A2A server", () => {
  it("finds the HTTP+JSON interface on the card, sends, streams, gets and lists", async () => {
    running = await serveA2A({ agents: { echo } });
    const client = await sdkRestClient(`${running.url}/a2a/echo/`, ALICE);
    const sent = (await client.sendMessage(text("over rest") as never)) as unknown as SdkTask;
    expect(sent.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sent.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "echo: over rest" });

    const events = await collect(client.sendMessageStream(text("stream over rest") as never));
    expect(events[0]?.payload?.$case).toBe("task");
    const last = events.at(-1)?.payload;
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const got = (await client.getTask({ id: sent.id, historyLength: 1 } as never)) as unknown as SdkTask & {
      history: unknown[];
    };
    expect(got.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.history).toHaveLength(1);
    const listed = await client.listTasks({ pageSize: 1, includeArtifacts: true } as never);
    expect(listed.totalSize).toBe(2);
    expect(listed.tasks).toHaveLength(1);
    expect(listed.nextPageToken).not.toBe("");
    const next = await client.listTasks({ pageSize: 1, pageToken: listed.nextPageToken } as never);
    expect(next.tasks[0]?.id).not.toBe(listed.tasks[0]?.id);
  });

  it("answers input-required on the same task, cancels, and subscribes", async () => {
    running = await serveA2A({ agents: { support, stuck, slow } });
    const client = await sdkRestClient(`${running.url}/a2a/support/`, ALICE);
    const waiting = (await client.sendMessage(text("refund A-1001") as never)) as unknown as SdkTask;
    expect(waiting.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = (await client.sendMessage({
      message: {
        messageId: crypto.randomUUID(),
        role: Role.ROLE_USER,
        taskId: waiting.id,
        parts: [{ content: { $case: "data", value: { approved: true } } }],
      },
    } as never)) as unknown as SdkTask;
    expect(done.artifacts[0]?.parts[0]?.content).toEqual({ $case: "text", value: "done: refunded A-1001" });

    const stuckClient = await sdkRestClient(`${running.url}/a2a/stuck/`, ALICE);
    const started = (await stuckClient.sendMessage({
      ...text("wait"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as SdkTask;
    const cancelled = (await stuckClient.cancelTask({ id: started.id } as never)) as unknown as SdkTask;
    expect(cancelled.status.state).toBe(TaskState.TASK_STATE_CANCELED);
    await expect(stuckClient.cancelTask({ id: started.id } as never)).rejects.toMatchObject({
      name: "TaskNotCancelableError",
      statusCode: 400,
    });

    const slowClient = await sdkRestClient(`${running.url}/a2a/slow/`, ALICE);
    const later = (await slowClient.sendMessage({
      ...text("later"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as SdkTask;
    const events = await collect(slowClient.resubscribeTask({ id: later.id } as never));
    const last = events.at(-1)?.payload;
    expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("sets, lists, gets and deletes push configs, and reads the extended card", async () => {
    const hook: Server = createServer((_, res) => res.end()).listen(0, "127.0.0.1");
    await new Promise((resolve) => hook.once("listening", resolve));
    const port = (hook.address() as AddressInfo).port;
    try {
      running = await serveA2A({
        agents: { stuck },
        a2a: {
          push: { allow: [`http://127.0.0.1:${port}`], allowPrivate: true },
          cards: { stuck: { extended: { description: "Waits, for members." } } },
        },
      });
      const client = await sdkRestClient(`${running.url}/a2a/stuck/`, ALICE);
      expect((await client.getAgentCard()).description).toBe("Waits, for members.");
      const task = (await client.sendMessage({
        ...text("wait"),
        configuration: { returnImmediately: true },
      } as never)) as unknown as SdkTask;
      const url = `http://127.0.0.1:${port}/hook`;
      expect(
        await client.createTaskPushNotificationConfig({ taskId: task.id, id: "r1", url } as never),
      ).toMatchObject({
        id: "r1",
        url,
      });
      expect(
        (await client.listTaskPushNotificationConfig({ taskId: task.id } as never)).configs.map((c) => c.id),
      ).toEqual(["r1"]);
      expect(
        await client.getTaskPushNotificationConfig({ taskId: task.id, id: "r1" } as never),
      ).toMatchObject({ url });
      await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: "r1" } as never);
      expect((await client.listTaskPushNotificationConfig({ taskId: task.id } as never)).configs).toEqual([]);
      await client.cancelTask({ id: task.id } as never);
    } finally {
      hook.closeAllConnections();
      await new Promise((resolve) => hook.close(resolve));
    }
  });

  it("keeps each caller to its own tasks and answers in the binding's error shape", async () => {
    running = await serveA2A({ agents: { echo } });
    const alice = await sdkRestClient(`${running.url}/a2a/echo/`, ALICE);
    const bob = await sdkRestClient(`${running.url}/a2a/echo/`, BOB);
    const task = (await alice.sendMessage(text("mine") as never)) as unknown as SdkTask;
    await expect(bob.getTask({ id: task.id } as never)).rejects.toMatchObject({
      name: "TaskNotFoundError",
      statusCode: 404,
    });
    expect((await bob.listTasks({} as never)).tasks).toEqual([]);

    const anonymous = await fetch(`${running.url}/a2a/echo/tasks/${task.id}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toContain("Bearer");
    const nowhere = await fetch(`${running.url}/a2a/echo/tasks/${task.id}:explode`, {
      method: "POST",
      headers: { authorization: `Bearer ${ALICE}` },
    });
    expect(nowhere.status).toBe(404);
    const bad = await fetch(`${running.url}/a2a/echo/message:send`, {
      method: "POST",
      headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/json" },
      body: JSON.stringify({ message: { role: "ROLE_USER" } }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { code: 400, status: "INVALID_ARGUMENT", details: [{ reason: "INVALID_PARAMS" }] },
    });
  });
});
