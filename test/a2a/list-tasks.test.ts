/**
 * `ListTasks` and the extended agent card, driven by `@a2a-js/sdk`'s client (spec 1.0 JSON-RPC):
 * pages of the caller's own tasks with filters, and a card only authenticated callers read.
 */
import { Role, TaskState } from "@a2a-js/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { echo, support } from "./fixtures/agents.js";
import { ALICE, BOB, type Running, sdkClient, serveA2A } from "./harness.js";

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const text = (value: string, extra: Record<string, unknown> = {}) => ({
  message: {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value } }],
    ...extra,
  },
});

type SdkTask = {
  id: string;
  contextId: string;
  status: { state: number };
  artifacts: unknown[];
  history: unknown[];
};

describe("ListTasks", () => {
  it("pages through the caller's own tasks, newest first, without repeating or skipping one", async () => {
    running = await serveA2A({ agents: { echo } });
    const alice = await sdkClient(`${running.url}/a2a/echo/`, ALICE);
    const bob = await sdkClient(`${running.url}/a2a/echo/`, BOB);
    const sent: string[] = [];
    for (let i = 0; i < 5; i++)
      sent.push(((await alice.sendMessage(text(`n${i}`) as never)) as unknown as SdkTask).id);
    await bob.sendMessage(text("bob's own") as never);

    const seen: string[] = [];
    let pageToken = "";
    let pages = 0;
    do {
      const page = await alice.listTasks({ pageSize: 2, pageToken } as never);
      expect(page.totalSize).toBe(5);
      expect(page.pageSize).toBe(2);
      seen.push(...page.tasks.map((t) => t.id));
      pageToken = page.nextPageToken;
      pages++;
    } while (pageToken !== "" && pages < 10);
    expect(pages).toBe(3);
    expect([...seen].sort()).toEqual([...sent].sort());
    // Most recently updated first.
    const all = await alice.listTasks({ pageSize: 5 } as never);
    const times = all.tasks.map((t) => Date.parse(t.status?.timestamp ?? ""));
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const bobs = await bob.listTasks({} as never);
    expect(bobs.totalSize).toBe(1);
    expect(bobs.tasks.map((t) => t.id)).not.toContain(sent[0]);
  });

  it("filters by context and by state, and leaves artifacts out unless asked", async () => {
    running = await serveA2A({ agents: { support } });
    const alice = await sdkClient(`${running.url}/a2a/support/`, ALICE);
    const waiting = (await alice.sendMessage(text("refund A-1001") as never)) as unknown as SdkTask;
    const other = (await alice.sendMessage(text("refund A-1001") as never)) as unknown as SdkTask;
    await alice.sendMessage({ message: { ...text("approve").message, taskId: other.id } } as never);

    const inContext = await alice.listTasks({ contextId: waiting.contextId } as never);
    expect(inContext.tasks.map((t) => t.id)).toEqual([waiting.id]);

    const asking = await alice.listTasks({ status: TaskState.TASK_STATE_INPUT_REQUIRED } as never);
    expect(asking.tasks.map((t) => t.id)).toEqual([waiting.id]);
    const done = await alice.listTasks({ status: TaskState.TASK_STATE_COMPLETED } as never);
    expect(done.tasks.map((t) => t.id)).toEqual([other.id]);
    expect(done.tasks[0]?.artifacts).toEqual([]);

    const withArtifacts = await alice.listTasks({
      status: TaskState.TASK_STATE_COMPLETED,
      includeArtifacts: true,
      historyLength: 1,
    } as never);
    expect(withArtifacts.tasks[0]?.artifacts).toHaveLength(1);
    expect(withArtifacts.tasks[0]?.history).toHaveLength(1);

    const future = await alice.listTasks({
      statusTimestampAfter: new Date(Date.now() + 60_000).toISOString(),
    } as never);
    expect(future.tasks).toEqual([]);
    expect(future.totalSize).toBe(0);
  });

  it("refuses a page token it did not give and a page size out of range (invalid params)", async () => {
    running = await serveA2A({ agents: { echo } });
    const alice = await sdkClient(`${running.url}/a2a/echo/`, ALICE);
    await expect(alice.listTasks({ pageToken: "not-a-token" } as never)).rejects.toThrow(/pageToken/);
    await expect(alice.listTasks({ pageSize: 1000 } as never)).rejects.toThrow(/invalid params/i);
  });
});

describe("the extended agent card", () => {
  const cards = {
    echo: {
      description: "Echoes.",
      extended: (principal: string) => ({
        description: `Echoes, for ${principal}.`,
        skills: [{ id: "echo-plus", name: "Echo plus", description: "Echoes louder.", tags: ["echo"] }],
      }),
    },
  };

  it("is announced on the public card and served to each authenticated caller as their own; an agent without one answers -32007", async () => {
    running = await serveA2A({ agents: { echo, support }, a2a: { cards } });
    const publicCard = (await (
      await fetch(`${running.url}/a2a/echo/.well-known/agent-card.json`)
    ).json()) as {
      description: string;
      capabilities: { extendedAgentCard: boolean };
      supportsAuthenticatedExtendedCard: boolean;
      skills: { id: string }[];
    };
    expect(publicCard.description).toBe("Echoes.");
    expect(publicCard.capabilities.extendedAgentCard).toBe(true);
    expect(publicCard.supportsAuthenticatedExtendedCard).toBe(true);
    expect(publicCard.skills.map((s) => s.id)).toEqual(["echo"]);

    // The SDK's client reads the extended card itself when the public one announces it.
    const alice = await sdkClient(`${running.url}/a2a/echo/`, ALICE);
    const card = await alice.getAgentCard();
    expect(card.description).toBe("Echoes, for alice.");
    expect(card.skills.map((s) => s.id)).toEqual(["echo-plus"]);
    const bob = await sdkClient(`${running.url}/a2a/echo/`, BOB);
    expect((await bob.getAgentCard()).description).toBe("Echoes, for bob.");

    const anonymous = await fetch(`${running.url}/a2a/echo`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetExtendedAgentCard", params: {} }),
    });
    expect(anonymous.status).toBe(401);
    const none = await fetch(`${running.url}/a2a/support`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${ALICE}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "GetExtendedAgentCard", params: {} }),
    });
    expect(((await none.json()) as { error: { code: number } }).error.code).toBe(-32007);
  });

  it("is not offered by a server without auth (-32007)", async () => {
    running = await serveA2A({ agents: { echo }, auth: "none", a2a: { cards } });
    const card = (await (await fetch(`${running.url}/.well-known/agent-card.json`)).json()) as {
      capabilities: { extendedAgentCard: boolean };
    };
    expect(card.capabilities.extendedAgentCard).toBe(false);
    const asked = await fetch(`${running.url}/a2a/echo`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetExtendedAgentCard", params: {} }),
    });
    expect(((await asked.json()) as { error: { code: number } }).error.code).toBe(-32007);
  });
});
