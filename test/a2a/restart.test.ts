/**
 * A task outlives its server: `glassloop serve` with A2A on runs in a child process, is killed
 * with SIGKILL mid-task, and a new process on the same databases resumes the run; `@a2a-js/sdk`'s
 * client gets the task and resubscribes to it there, and reads it to the end.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Role, type StreamResponse, TaskState } from "@a2a-js/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startServeProcess } from "../helpers/serve-process.js";
import { words } from "../serve/slow-model.js";
import { ALICE, sdkClient } from "./harness.js";

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `glassloop serve` in a child process (see startServeProcess); killed after each test. */
async function start(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const started = await startServeProcess(
    "test/a2a/fixtures/slow-module.ts",
    join(dir, "store.db"),
    join(dir, "serve.db"),
    { GLASSLOOP_SERVE_TOKENS: `alice=${ALICE}` },
  );
  children.push(started.child);
  return started;
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
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));

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
