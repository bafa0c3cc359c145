/**
 * Push notifications: `@a2a-js/sdk`'s client sets, gets, lists and deletes webhook configs on
 * glassloop's A2A server, and a receiver on 127.0.0.1 gets each change of state and the result
 * artifact as spec 1.0 `StreamResponse` bodies with the config's token. The webhook URL is the
 * caller's word: the allow-list, private addresses, redirects, slow and failing receivers are
 * each bounded, each with a typed outcome.
 */
import { Role, StreamResponse, TaskState } from "@a2a-js/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { type A2APushDelivery, type A2APushOptions, MemoryPushStore } from "../../src/a2a/index.js";
import { echo, stuck, support } from "./fixtures/agents.js";
import { ALICE, BOB, type Running, sdkClient, serveA2A } from "./harness.js";
import { type Received, receiver } from "./webhook.js";

let running: Running | undefined;
let hook: Awaited<ReturnType<typeof receiver>> | undefined;
afterEach(async () => {
  await running?.close();
  await hook?.close();
  running = undefined;
  hook = undefined;
});

const text = (value: string, extra: Record<string, unknown> = {}) => ({
  message: {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value } }],
    ...extra,
  },
});

async function until<T>(check: () => T | undefined, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

function pushServer(agents: Parameters<typeof serveA2A>[0]["agents"], push: A2APushOptions) {
  return serveA2A({ agents, a2a: { push } });
}

const payloadsOf = (received: readonly Received[]) =>
  received.map((r) => StreamResponse.fromJSON(JSON.parse(r.body)).payload);

describe("push notifications with @a2a-js/sdk's client", () => {
  it("sets, gets, lists and deletes a config; the webhook gets each change of state and the artifact, with the token", async () => {
    hook = await receiver();
    const deliveries: A2APushDelivery[] = [];
    running = await pushServer(
      { support },
      { allow: [`http://127.0.0.1:${hook.port}`], allowPrivate: true, onDelivery: (d) => deliveries.push(d) },
    );
    const alice = await sdkClient(`${running.url}/a2a/support/`, ALICE);
    expect((await alice.getAgentCard()).capabilities?.pushNotifications).toBe(true);
    const waiting = (await alice.sendMessage(text("refund A-1001") as never)) as unknown as { id: string };

    const set = await alice.createTaskPushNotificationConfig({
      taskId: waiting.id,
      id: "hook-1",
      url: hook.url,
      token: "receiver-secret-1",
    } as never);
    expect(set).toMatchObject({
      id: "hook-1",
      taskId: waiting.id,
      url: hook.url,
      token: "receiver-secret-1",
    });
    expect(
      await alice.getTaskPushNotificationConfig({ taskId: waiting.id, id: "hook-1" } as never),
    ).toMatchObject({
      id: "hook-1",
    });
    const listed = await alice.listTaskPushNotificationConfig({ taskId: waiting.id } as never);
    expect(listed.configs.map((c) => c.id)).toEqual(["hook-1"]);

    await alice.sendMessage(text("approve", { taskId: waiting.id }) as never);
    const payloads = await until(() => {
      const p = payloadsOf(hook?.received ?? []);
      return p.some(
        (x) => x?.$case === "statusUpdate" && x.value.status?.state === TaskState.TASK_STATE_COMPLETED,
      )
        ? p
        : undefined;
    });
    const states = payloads.flatMap((p) => (p?.$case === "statusUpdate" ? [p.value.status?.state] : []));
    expect(states).toEqual([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]);
    const artifact = payloads.find((p) => p?.$case === "artifactUpdate");
    expect(artifact?.$case === "artifactUpdate" && artifact.value.artifact?.parts[0]?.content).toEqual({
      $case: "text",
      value: "done: refunded A-1001",
    });
    for (const r of hook.received) {
      expect(r.headers["x-a2a-notification-token"]).toBe("receiver-secret-1");
      expect(r.headers["content-type"]).toBe("application/a2a+json");
    }
    expect(deliveries.every((d) => d.outcome === "delivered" && d.attempts === 1)).toBe(true);

    await alice.deleteTaskPushNotificationConfig({ taskId: waiting.id, id: "hook-1" } as never);
    expect((await alice.listTaskPushNotificationConfig({ taskId: waiting.id } as never)).configs).toEqual([]);
  });

  it("takes a config with the message (taskPushNotificationConfig) and sends the Authorization it names", async () => {
    hook = await receiver();
    running = await pushServer({ echo }, { allow: [`http://127.0.0.1:${hook.port}`], allowPrivate: true });
    const alice = await sdkClient(`${running.url}/a2a/echo/`, ALICE);
    await alice.sendMessage({
      ...text("push me"),
      configuration: {
        taskPushNotificationConfig: {
          url: hook.url,
          authentication: { scheme: "Bearer", credentials: "hook-key-1" },
        },
        returnImmediately: true,
      },
    } as never);
    const payloads = await until(() => {
      const p = payloadsOf(hook?.received ?? []);
      return p.some(
        (x) => x?.$case === "statusUpdate" && x.value.status?.state === TaskState.TASK_STATE_COMPLETED,
      )
        ? p
        : undefined;
    });
    expect(payloads.some((p) => p?.$case === "artifactUpdate")).toBe(true);
    expect(hook.received[0]?.headers.authorization).toBe("Bearer hook-key-1");
  });

  it("keeps configs to the caller's own tasks, and answers -32003 when the server offers no push", async () => {
    running = await pushServer({ stuck }, { allow: ["https://hooks.example.com"] });
    const alice = await sdkClient(`${running.url}/a2a/stuck/`, ALICE);
    const bob = await sdkClient(`${running.url}/a2a/stuck/`, BOB);
    const task = (await alice.sendMessage({
      ...text("wait"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as {
      id: string;
    };
    await expect(
      bob.createTaskPushNotificationConfig({ taskId: task.id, url: "https://hooks.example.com/x" } as never),
    ).rejects.toThrow(/not found/i);
    await alice.createTaskPushNotificationConfig({
      taskId: task.id,
      id: "a",
      url: "https://hooks.example.com/x",
    } as never);
    await expect(bob.listTaskPushNotificationConfig({ taskId: task.id } as never)).rejects.toThrow(
      /not found/i,
    );
    await alice.cancelTask({ id: task.id } as never);
    await running.close();

    // Without push the card says so (the SDK's client refuses on its own), and the server answers -32003.
    running = await serveA2A({ agents: { echo } });
    const plain = await sdkClient(`${running.url}/a2a/echo/`, ALICE);
    expect((await plain.getAgentCard()).capabilities?.pushNotifications).toBe(false);
    const sent = (await plain.sendMessage(text("hi") as never)) as unknown as { id: string };
    const asked = await fetch(`${running.url}/a2a/echo`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ALICE}` },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "CreateTaskPushNotificationConfig",
        params: { taskId: sent.id, url: "https://hooks.example.com/x" },
      }),
    });
    expect(((await asked.json()) as { error: { code: number } }).error.code).toBe(-32003);
  });
});

describe("push configs a store kept", () => {
  it("are followed again once the caller touches the task (as after a restart with a durable store)", async () => {
    hook = await receiver();
    const store = new MemoryPushStore();
    running = await pushServer(
      { stuck },
      { allow: [`http://127.0.0.1:${hook.port}`], allowPrivate: true, store },
    );
    const alice = await sdkClient(`${running.url}/a2a/stuck/`, ALICE);
    const task = (await alice.sendMessage({
      ...text("wait"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as { id: string };
    // Written straight to the store, as a durable one would hold it when the server starts again.
    await store.put("alice", {
      id: "kept",
      taskId: task.id,
      url: hook.url,
      token: "kept-token",
      version: "1.0",
    });
    await alice.getTask({ id: task.id } as never);
    await alice.cancelTask({ id: task.id } as never);
    const payloads = await until(() => {
      const p = payloadsOf(hook?.received ?? []);
      return p.some(
        (x) => x?.$case === "statusUpdate" && x.value.status?.state === TaskState.TASK_STATE_CANCELED,
      )
        ? p
        : undefined;
    });
    expect(payloads.length).toBeGreaterThan(0);
    expect(hook.received[0]?.headers["x-a2a-notification-token"]).toBe("kept-token");
  });
});

describe("push notifications with @a2a-js/sdk's v0.3 transport", () => {
  it("sets, gets, lists and deletes with tasks/pushNotificationConfig/*, and the webhook gets v0.3 bodies", async () => {
    hook = await receiver();
    running = await pushServer({ support }, { allow: [`http://127.0.0.1:${hook.port}`], allowPrivate: true });
    const alice = await sdkClient(`${running.url}/a2a/support/`, ALICE, true);
    const waiting = (await alice.sendMessage(text("refund A-1001") as never)) as unknown as { id: string };
    const set = await alice.createTaskPushNotificationConfig({
      taskId: waiting.id,
      id: "old-hook",
      url: hook.url,
      token: "receiver-secret-2",
    } as never);
    expect(set).toMatchObject({ id: "old-hook", taskId: waiting.id, url: hook.url });
    expect(
      await alice.getTaskPushNotificationConfig({ taskId: waiting.id, id: "old-hook" } as never),
    ).toMatchObject({ id: "old-hook", url: hook.url });
    const listed = await alice.listTaskPushNotificationConfig({ taskId: waiting.id } as never);
    expect(listed.configs.map((c) => c.id)).toEqual(["old-hook"]);
    await alice.sendMessage(text("approve", { taskId: waiting.id }) as never);
    const bodies = await until(() => {
      const b = (hook?.received ?? []).map(
        (r) => JSON.parse(r.body) as { kind: string; status?: { state: string } },
      );
      return b.some((x) => x.kind === "status-update" && x.status?.state === "completed") ? b : undefined;
    });
    expect(bodies.map((b) => b.kind)).toContain("artifact-update");
    expect(hook.received[0]?.headers["x-a2a-notification-token"]).toBe("receiver-secret-2");
    await alice.deleteTaskPushNotificationConfig({ taskId: waiting.id, id: "old-hook" } as never);
    expect((await alice.listTaskPushNotificationConfig({ taskId: waiting.id } as never)).configs).toEqual([]);
  });
});

describe("a webhook URL is untrusted", () => {
  it("is refused when off the allow-list, not https without one, on a private literal address, or with user info", async () => {
    running = await pushServer({ stuck }, {});
    const alice = await sdkClient(`${running.url}/a2a/stuck/`, ALICE);
    const task = (await alice.sendMessage({
      ...text("wait"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as {
      id: string;
    };
    const create = (url: string) => alice.createTaskPushNotificationConfig({ taskId: task.id, url } as never);
    await expect(create("http://hooks.example.com/x")).rejects.toThrow(/must be https/);
    await expect(create("https://127.0.0.1/x")).rejects.toThrow(/loopback or private/);
    await expect(create("https://[::1]/x")).rejects.toThrow(/loopback or private/);
    await expect(create("https://169.254.169.254/latest/meta-data")).rejects.toThrow(/loopback or private/);
    await expect(create("https://user:pw@hooks.example.com/x")).rejects.toThrow(/user name or password/);
    await expect(create("file:///etc/passwd")).rejects.toThrow(/http or https/);
    await alice.cancelTask({ id: task.id } as never);
    await running.close();

    running = await pushServer({ stuck }, { allow: ["https://hooks.example.com/a2a"] });
    const bob = await sdkClient(`${running.url}/a2a/stuck/`, BOB);
    const other = (await bob.sendMessage({
      ...text("wait"),
      configuration: { returnImmediately: true },
    } as never)) as unknown as {
      id: string;
    };
    await expect(
      bob.createTaskPushNotificationConfig({
        taskId: other.id,
        url: "https://hooks.example.com/elsewhere",
      } as never),
    ).rejects.toThrow(/allow-list/);
    await bob.cancelTask({ id: other.id } as never);
  });

  it("that names a host resolving to a loopback address is refused when it is called (checked at connect)", async () => {
    hook = await receiver();
    const deliveries: A2APushDelivery[] = [];
    running = await pushServer(
      { echo },
      { allow: [`http://localhost:${hook.port}`], onDelivery: (d) => deliveries.push(d) },
    );
    const alice = await sdkClient(`${running.url}/a2a/echo/`, ALICE);
    await alice.sendMessage({
      ...text("hi"),
      configuration: { taskPushNotificationConfig: { url: `http://localhost:${hook.port}/hook` } },
    } as never);
    const first = await until(() => deliveries[0]);
    expect(first).toMatchObject({ outcome: "refused", reason: expect.stringMatching(/loopback, private/) });
    expect(hook.received).toEqual([]);
  });

  it("is tried a bounded number of times: 500s are retried, a redirect is not followed, a silent receiver times out", async () => {
    for (const [answer, expected] of [
      [500, { outcome: "failed", attempts: 2, status: 500 }],
      [302, { outcome: "refused", reason: expect.stringMatching(/redirects are not followed/) }],
      ["hang", { outcome: "failed", attempts: 2, reason: expect.stringMatching(/no answer|quiet/) }],
    ] as const) {
      hook = await receiver(answer);
      const deliveries: A2APushDelivery[] = [];
      running = await pushServer(
        { echo },
        {
          allow: [`http://127.0.0.1:${hook.port}`],
          allowPrivate: true,
          attempts: 2,
          // Long enough for a loaded machine to answer; short for the receiver that never does.
          timeoutMs: answer === "hang" ? 300 : 2_000,
          onDelivery: (d) => deliveries.push(d),
        },
      );
      const alice = await sdkClient(`${running.url}/a2a/echo/`, ALICE);
      await alice.sendMessage({
        ...text("hi"),
        configuration: { taskPushNotificationConfig: { url: hook.url } },
      } as never);
      expect(await until(() => deliveries[0])).toMatchObject(expected);
      // The first notification: one request when redirected, `attempts` requests when it failed.
      const firstBody = hook.received[0]?.body;
      const tries = hook.received.filter((r) => r.body === firstBody).length;
      // A try that timed out before its body arrived is not seen by the receiver: at most 2 then.
      if (answer === "hang") expect(tries).toBeLessThanOrEqual(2);
      else expect(tries).toBe(answer === 302 ? 1 : 2);
      await running.close();
      await hook.close();
      running = undefined;
      hook = undefined;
    }
  });
});
