/**
 * Push notifications from several servers sharing one log (SQLite files, or Postgres): one server
 * at a time holds a task's notifications, so each state reaches the webhook once whichever server
 * a caller talks to; when that server stops, another takes the task over from where it stood.
 */
import { Role, StreamResponse, TaskState } from "@a2a-js/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { SERVE_BACKENDS } from "../serve/harness.js";
import { support } from "./fixtures/agents.js";
import { ALICE, type Running, sdkClient, serveA2A } from "./harness.js";
import { receiver } from "./webhook.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ask = (text: string, extra: Record<string, unknown> = {}) =>
  ({
    message: {
      messageId: crypto.randomUUID(),
      role: Role.ROLE_USER,
      parts: [{ content: { $case: "text", value: text } }],
    },
    ...extra,
  }) as never;
const approve = (taskId: string) =>
  ({
    message: {
      messageId: crypto.randomUUID(),
      role: Role.ROLE_USER,
      taskId,
      parts: [{ content: { $case: "data", value: { approved: true } } }],
    },
  }) as never;

async function until(check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.each(SERVE_BACKENDS)("push notifications from two servers on one $name", (backend) => {
  it.skipIf(backend.skip !== undefined)(
    "reach the webhook once per state, and go on from the next server when the first stops",
    async () => {
      const hook = await receiver();
      cleanups.push(() => hook.close());
      const place = await backend.fresh();
      const server = async (): Promise<Running> => {
        const { store, log, close } = await place.open();
        const running = await serveA2A({
          agents: { support },
          store,
          log,
          a2a: { push: { allow: [`http://127.0.0.1:${hook.port}/`], allowPrivate: true } },
        });
        let closed = false;
        const stop = async () => {
          if (closed) return;
          closed = true;
          await running.close();
          await close();
        };
        cleanups.push(stop);
        return { ...running, close: stop };
      };
      const statesOf = (taskId: string) =>
        hook.received.flatMap((r) => {
          const p = StreamResponse.fromJSON(JSON.parse(r.body)).payload;
          return p?.$case === "statusUpdate" && p.value.taskId === taskId ? [p.value.status?.state] : [];
        });
      const push = { configuration: { taskPushNotificationConfig: { url: hook.url } } };

      const a = await server();
      const b = await server();
      const viaA = await sdkClient(`${a.url}/a2a/support/`, ALICE);
      const viaB = await sdkClient(`${b.url}/a2a/support/`, ALICE);

      // Started on A, answered on B: A holds the task's notifications; B, touched, does not send.
      const first = (await viaA.sendMessage(ask("refund A-1001", push))) as unknown as { id: string };
      await until(() => statesOf(first.id).includes(TaskState.TASK_STATE_INPUT_REQUIRED));
      await viaB.getTask({ id: first.id } as never);
      await viaB.sendMessage(approve(first.id));
      await until(() => statesOf(first.id).includes(TaskState.TASK_STATE_COMPLETED));
      await new Promise((r) => setTimeout(r, 500));
      expect(statesOf(first.id).filter((s) => s === TaskState.TASK_STATE_COMPLETED)).toHaveLength(1);
      expect(statesOf(first.id).filter((s) => s === TaskState.TASK_STATE_INPUT_REQUIRED)).toHaveLength(1);

      // Started on A, A stops: B takes the task over when it is touched and sends the rest, once.
      const second = (await viaA.sendMessage(ask("refund A-1001 again", push))) as unknown as { id: string };
      await until(() => statesOf(second.id).includes(TaskState.TASK_STATE_INPUT_REQUIRED));
      await a.close();
      await viaB.sendMessage(approve(second.id));
      await until(() => statesOf(second.id).includes(TaskState.TASK_STATE_COMPLETED));
      await new Promise((r) => setTimeout(r, 500));
      const states = statesOf(second.id);
      expect(states.filter((s) => s === TaskState.TASK_STATE_COMPLETED)).toHaveLength(1);
      expect(states.filter((s) => s === TaskState.TASK_STATE_INPUT_REQUIRED)).toHaveLength(1);
    },
    60_000,
  );
});
