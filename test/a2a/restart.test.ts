/**
 * A task outlives its server: `glassloop serve` with A2A on runs in a child process, is killed
 * with SIGKILL mid-task, and a new process on the same databases resumes the run; `@a2a-js/sdk`'s
 * client gets the task and resubscribes to it there, and reads it to the end. A task's webhooks
 * outlive it too: the next process sends the rest of its notifications without being asked.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Role, StreamResponse, TaskState } from "@a2a-js/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startServeProcess } from "../helpers/serve-process.js";
import { words } from "../serve/slow-model.js";
import { ALICE, sdkClient } from "./harness.js";
import { receiver } from "./webhook.js";

const children: ChildProcess[] = [];
const dirs: string[] = [];
const hooks: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const hook of hooks.splice(0)) await hook.close();
});

/** `glassloop serve` in a child process (see startServeProcess); killed after each test. */
async function start(
  dir: string,
  module = "test/a2a/fixtures/slow-module.ts",
  env: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess }> {
  const started = await startServeProcess(module, join(dir, "store.db"), join(dir, "serve.db"), {
    GLASSLOOP_SERVE_TOKENS: `alice=${ALICE}`,
    ...env,
  });
  children.push(started.child);
  return started;
}

async function kill(child: ChildProcess): Promise<void> {
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
}

describe("an A2A task across a server crash", () => {
  it("is resumed by the next process: GetTask finds it and SubscribeToTask reads it to the end", async () => {
    const dir = mkdtempSync(join(tmpdir(), "glassloop-a2a-"));
    dirs.push(dir);
    const first = await start(dir);
    const client = await sdkClient(`${first.url}a2a/slow/`, ALICE);
    const stream = client.sendMessageStream({
      message: {
        messageId: "m-crash",
        role: Role.ROLE_USER,
        parts: [{ content: { $case: "text", value: "go" } }],
      },
    } as never);
    let taskId = "";
    let deltas = 0;
    for await (const event of stream) {
      const p = event.payload;
      if (p?.$case === "task") taskId = p.value.id;
      if (p?.$case === "statusUpdate" && p.value.status?.message) deltas++;
      if (deltas >= 5) break;
    }
    expect(taskId).not.toBe("");
    await kill(first.child);

    const second = await start(dir);
    const again = await sdkClient(`${second.url}a2a/slow/`, ALICE);
    const got = (await again.getTask({ id: taskId } as never)) as unknown as { status: { state: number } };
    expect([TaskState.TASK_STATE_WORKING, TaskState.TASK_STATE_COMPLETED]).toContain(got.status.state);
    if (got.status.state === TaskState.TASK_STATE_WORKING) {
      const events: StreamResponse[] = [];
      for await (const event of again.resubscribeTask({ id: taskId } as never)) events.push(event);
      expect(events[0]?.payload?.$case).toBe("task");
      const last = events.at(-1)?.payload;
      expect(last?.$case === "statusUpdate" && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    }
    const done = (await again.getTask({ id: taskId } as never)) as unknown as {
      status: { state: number };
      artifacts: { parts: { content?: { value: unknown } }[] }[];
    };
    expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    // The step in flight at the crash ran again, whole.
    expect(done.artifacts[0]?.parts[0]?.content?.value).toBe(words(120));
  }, 90_000);
});

describe("an A2A task's webhooks across a server crash", () => {
  it("are followed by the next process, which sends the rest of the notifications unasked", async () => {
    const dir = mkdtempSync(join(tmpdir(), "glassloop-a2a-push-"));
    dirs.push(dir);
    const hook = await receiver();
    hooks.push(hook);
    const env = { PUSH_ALLOW: `http://127.0.0.1:${hook.port}/` };
    const module = "test/a2a/fixtures/slow-push-module.ts";
    const first = await start(dir, module, env);
    const client = await sdkClient(`${first.url}a2a/slow/`, ALICE);
    const task = (await client.sendMessage({
      message: {
        messageId: "m-push",
        role: Role.ROLE_USER,
        parts: [{ content: { $case: "text", value: "go" } }],
      },
      configuration: {
        returnImmediately: true,
        taskPushNotificationConfig: { url: hook.url, token: "kept-across-restarts" },
      },
    } as never)) as unknown as { id: string };
    const states = () =>
      hook.received.flatMap((r) => {
        const p = StreamResponse.fromJSON(JSON.parse(r.body)).payload;
        return p?.$case === "statusUpdate" ? [p.value.status?.state] : [];
      });
    await until(() => states().includes(TaskState.TASK_STATE_WORKING));
    await kill(first.child);
    const before = hook.received.length;

    // Nobody touches the task: the next process follows its webhook from where it stood.
    await start(dir, module, env);
    await until(() => states().includes(TaskState.TASK_STATE_COMPLETED), 60_000);
    const after = hook.received.slice(before).map((r) => StreamResponse.fromJSON(JSON.parse(r.body)).payload);
    expect(after.some((p) => p?.$case === "artifactUpdate" && p.value.taskId === task.id)).toBe(true);
    expect(after.at(-1)?.$case).toBe("statusUpdate");
    for (const r of hook.received) expect(r.headers["x-a2a-notification-token"]).toBe("kept-across-restarts");
    // Each state went out once: the next process did not send again what the first had sent.
    expect(states().filter((s) => s === TaskState.TASK_STATE_COMPLETED)).toHaveLength(1);
  }, 120_000);
});

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}
