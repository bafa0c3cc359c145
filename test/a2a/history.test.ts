/**
 * A task's history: every message of the task in order (the caller's first message and its
 * answers to input-required, the agent's questions and its last status message), read by
 * `@a2a-js/sdk`'s client in both spellings, cut by `historyLength`, kept in the serve log's
 * SQLite file across a restart, bounded, and the owner's alone.
 */
import { Role, TaskState } from "@a2a-js/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresA2AStore } from "../../src/a2a/server/postgres-a2a-store.js";
import { SqliteA2AStore } from "../../src/a2a/server/sqlite-a2a-store.js";
import {
  type A2ATaskHistory,
  HISTORY_CAP,
  HISTORY_MESSAGE_CHARS,
  MemoryTaskHistory,
} from "../../src/a2a/server/task-history.js";
import type { Message } from "../../src/a2a/wire.js";
import { PostgresServeLog } from "../../src/serve/postgres-serve-log.js";
import { FunctionModel } from "../../src/testing.js";
import { freshSchema, POSTGRES_SKIP, postgresUrl } from "../helpers/postgres.js";
import { SERVE_BACKENDS } from "../serve/harness.js";
import { refund } from "./fixtures/agents.js";
import { ALICE, BOB, type Running, sdkClient, serveA2A, withToken } from "./harness.js";

let running: Running | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** Refunds two orders, each waiting for approval, then says so. */
const twice = () => ({
  model: new FunctionModel((r) => {
    const done = r.messages.filter((m) => m.role === "tool").length;
    if (done === 0) return { toolCalls: [{ name: "refund", args: { order: "A-1" } }] };
    if (done === 1) return { toolCalls: [{ name: "refund", args: { order: "A-2" } }] };
    return { text: "both refunded" };
  }),
  tools: [refund],
});

type SdkMessage = {
  messageId: string;
  role: number;
  parts: { content?: { $case: string; value: unknown } }[];
};
type SdkTask = { id: string; contextId: string; status: { state: number }; history: SdkMessage[] };

const send = (messageId: string, part: unknown, extra: Record<string, unknown> = {}) =>
  ({ message: { messageId, role: Role.ROLE_USER, parts: [part], ...extra } }) as never;
const text = (value: string) => ({ content: { $case: "text", value } });
const data = (value: unknown) => ({ content: { $case: "data", value } });

/** Runs the two-approval task to its end over `client`; returns its id. */
async function twoRounds(client: Awaited<ReturnType<typeof sdkClient>>): Promise<string> {
  const first = (await client.sendMessage(send("m-start", text("refund both")))) as unknown as SdkTask;
  expect(first.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const second = (await client.sendMessage(
    send("m-yes-1", data({ approved: true }), { taskId: first.id }),
  )) as unknown as SdkTask;
  expect(second.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
  const done = (await client.sendMessage(
    send("m-yes-2", text("approve"), { taskId: first.id }),
  )) as unknown as SdkTask;
  expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
  return first.id;
}

/** What a history says, message by message: who, and the first text or the data's approvals. */
function summary(history: readonly SdkMessage[]): string[] {
  return history.map((m) => {
    const who = m.role === Role.ROLE_USER ? "user" : "agent";
    const asked = m.parts.find((p) => p.content?.$case === "data")?.content?.value as
      | { approvals?: { input: { order: string } }[]; approved?: boolean }
      | undefined;
    if (asked?.approvals) return `${who}: asks ${asked.approvals.map((a) => a.input.order).join(",")}`;
    if (asked?.approved !== undefined) return `${who}: approved=${asked.approved}`;
    const first = m.parts.find((p) => p.content?.$case === "text")?.content?.value;
    return `${who}: ${String(first)}`;
  });
}

describe("a task's history", () => {
  it("holds every message in order: the start, each question, each answer, and the end", async () => {
    running = await serveA2A({ agents: { twice } });
    const client = await sdkClient(`${running.url}/a2a/twice/`, ALICE);
    const id = await twoRounds(client);
    const got = (await client.getTask({ id } as never)) as unknown as SdkTask;
    expect(summary(got.history)).toEqual([
      "user: refund both",
      "agent: asks A-1",
      "user: approved=true",
      "agent: asks A-2",
      "user: approve",
      "agent: both refunded",
    ]);
    // The caller's messages keep the caller's ids; each belongs to the task and its context.
    expect(got.history.filter((m) => m.role === Role.ROLE_USER).map((m) => m.messageId)).toEqual([
      "m-start",
      "m-yes-1",
      "m-yes-2",
    ]);
    for (const m of got.history as unknown as { taskId: string; contextId: string }[])
      expect(m).toMatchObject({ taskId: id, contextId: got.contextId });
  });

  it("is cut to the latest historyLength messages (0: none) by GetTask, SendMessage and ListTasks", async () => {
    running = await serveA2A({ agents: { twice } });
    const client = await sdkClient(`${running.url}/a2a/twice/`, ALICE);
    const id = await twoRounds(client);
    const last2 = (await client.getTask({ id, historyLength: 2 } as never)) as unknown as SdkTask;
    expect(summary(last2.history)).toEqual(["user: approve", "agent: both refunded"]);
    const none = (await client.getTask({ id, historyLength: 0 } as never)) as unknown as SdkTask;
    expect(none.history).toEqual([]);
    const more = (await client.getTask({ id, historyLength: 50 } as never)) as unknown as SdkTask;
    expect(more.history).toHaveLength(6);

    const started = (await client.sendMessage({
      ...(send("m-other", text("refund again")) as object),
      configuration: { historyLength: 1 },
    } as never)) as unknown as SdkTask;
    expect(summary(started.history)).toEqual(["agent: asks A-1"]);

    const listed = (await client.listTasks({ historyLength: 1 } as never)) as unknown as {
      tasks: SdkTask[];
    };
    const done = listed.tasks.find((t) => t.id === id);
    expect(summary(done?.history ?? [])).toEqual(["agent: both refunded"]);
  });

  it("reads the same in v0.3's spelling (tasks/get with historyLength)", async () => {
    running = await serveA2A({ agents: { twice } });
    const id = await twoRounds(await sdkClient(`${running.url}/a2a/twice/`, ALICE));
    const res = await withToken(ALICE)(`${running.url}/a2a/twice`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tasks/get",
        params: { id, historyLength: 3 },
      }),
    });
    const { result } = (await res.json()) as {
      result: { history: { kind: string; role: string; messageId: string }[] };
    };
    expect(result.history.map((m) => [m.kind, m.role])).toEqual([
      ["message", "agent"],
      ["message", "user"],
      ["message", "agent"],
    ]);
    expect(result.history[1]?.messageId).toBe("m-yes-2");
  });

  it("keeps a question the caller canceled instead of answering, before the cancellation", async () => {
    running = await serveA2A({ agents: { twice } });
    const client = await sdkClient(`${running.url}/a2a/twice/`, ALICE);
    const first = (await client.sendMessage(send("m-c", text("refund both")))) as unknown as SdkTask;
    await client.cancelTask({ id: first.id } as never);
    const got = (await client.getTask({ id: first.id } as never)) as unknown as SdkTask;
    expect(got.status.state).toBe(TaskState.TASK_STATE_CANCELED);
    const said = summary(got.history);
    expect(said.slice(0, 2)).toEqual(["user: refund both", "agent: asks A-1"]);
    expect(said).toHaveLength(3);
    expect(said[2]?.startsWith("agent: aborted")).toBe(true);
  });

  it("that cannot be written loses the message, not the task: the send still answers (logged)", async () => {
    const failing: A2ATaskHistory = {
      add: async () => {
        throw new Error("disk full");
      },
      messages: async () => [],
    };
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      running = await serveA2A({ agents: { twice }, a2a: { history: failing } });
      const id = await twoRounds(await sdkClient(`${running.url}/a2a/twice/`, ALICE));
      const got = (await (
        await sdkClient(`${running.url}/a2a/twice/`, ALICE)
      ).getTask({
        id,
      } as never)) as unknown as SdkTask;
      // Nothing kept: the run's input stands for the first message, the current status closes it.
      expect(summary(got.history)).toEqual(["user: refund both", "agent: both refunded"]);
      expect(JSON.stringify(errors)).toContain("was not kept in its history");
    } finally {
      console.error = original;
    }
  });

  it("is the owner's alone: another caller's GetTask is 'task not found'", async () => {
    running = await serveA2A({ agents: { twice } });
    const id = await twoRounds(await sdkClient(`${running.url}/a2a/twice/`, ALICE));
    const bob = await sdkClient(`${running.url}/a2a/twice/`, BOB);
    await expect(bob.getTask({ id } as never)).rejects.toThrow(/not found/i);
  });
});

describe.each(SERVE_BACKENDS)("a task's history over $name", (backend) => {
  it.skipIf(backend.skip !== undefined)(
    "survives a restart: a task waiting for input is answered on the next server, its history whole",
    async () => {
      const place = await backend.fresh();
      const opened: { close(): Promise<void> }[] = [];
      const files = async () => {
        const { store, log, close } = await place.open();
        opened.push({ close });
        return { store, log };
      };
      running = await serveA2A({ agents: { twice }, ...(await files()) });
      const first = (await (
        await sdkClient(`${running.url}/a2a/twice/`, ALICE)
      ).sendMessage(send("m-start", text("refund both")))) as unknown as SdkTask;
      expect(first.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      await running.close();

      running = await serveA2A({ agents: { twice }, ...(await files()) });
      const client = await sdkClient(`${running.url}/a2a/twice/`, ALICE);
      const waiting = (await client.getTask({ id: first.id } as never)) as unknown as SdkTask;
      expect(waiting.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      await client.sendMessage(send("m-yes-1", data({ approved: true }), { taskId: first.id }));
      await running.close();

      running = await serveA2A({ agents: { twice }, ...(await files()) });
      const again = await sdkClient(`${running.url}/a2a/twice/`, ALICE);
      const done = (await again.sendMessage(
        send("m-yes-2", text("approve"), { taskId: first.id }),
      )) as unknown as SdkTask;
      expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(summary(done.history)).toEqual([
        "user: refund both",
        "agent: asks A-1",
        "user: approved=true",
        "agent: asks A-2",
        "user: approve",
        "agent: both refunded",
      ]);
      await running.close();
      running = undefined;
      for (const o of opened) await o.close();
    },
  );
});

const historyStores: [string, string | undefined, () => Promise<A2ATaskHistory & { close?(): void }>][] = [
  ["in memory", undefined, async () => new MemoryTaskHistory()],
  ["in SQLite", undefined, async () => new SqliteA2AStore(":memory:")],
  [
    "on Postgres",
    POSTGRES_SKIP,
    async () => {
      const log = await PostgresServeLog.connect({ url: await postgresUrl(), schema: freshSchema() });
      const store = new PostgresA2AStore(log.pg);
      return Object.assign(store, { close: () => void log.close() });
    },
  ],
];

describe.each(historyStores)("the history store %s", (_name, skip, make) => {
  const msg = (i: number, textValue = `m${i}`): Message => ({
    messageId: `id-${i}`,
    role: i % 2 === 0 ? "ROLE_USER" : "ROLE_AGENT",
    parts: [{ text: textValue }],
  });

  it.skipIf(skip !== undefined)(
    `keeps the first message and the latest ${HISTORY_CAP - 1}, and each id once`,
    async () => {
      const history = await make();
      for (let i = 0; i < HISTORY_CAP + 50; i++) await history.add("t", msg(i));
      await history.add("t", msg(HISTORY_CAP + 49, "again"));
      const kept = await history.messages("t");
      expect(kept).toHaveLength(HISTORY_CAP);
      expect(kept[0]?.messageId).toBe("id-0");
      expect(kept[1]?.messageId).toBe("id-51");
      expect(kept.at(-1)).toEqual(msg(HISTORY_CAP + 49));
      expect(await history.messages("other")).toEqual([]);
      history.close?.();
    },
  );

  it.skipIf(skip !== undefined)(
    "keeps a message over the size cap as a note of its size, with its ids",
    async () => {
      const history = await make();
      await history.add("t", { ...msg(0, "x".repeat(HISTORY_MESSAGE_CHARS)), taskId: "t", contextId: "c" });
      const [kept] = await history.messages("t");
      expect(kept).toMatchObject({ messageId: "id-0", role: "ROLE_USER", taskId: "t", contextId: "c" });
      expect(kept?.parts[0]?.text).toMatch(/^\[a message of \d+ characters of JSON, over the history's cap/);
      history.close?.();
    },
  );
});
