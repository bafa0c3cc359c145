import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startServeProcess } from "../helpers/serve-process.js";
import { ALICE, parseSse } from "./harness.js";
import { words } from "./slow-model.js";

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `glassloop serve` in a child process (see startServeProcess); killed after each test. */
async function start(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const started = await startServeProcess(
    "test/serve/fixtures/slow-module.ts",
    join(dir, "store.db"),
    join(dir, "serve.db"),
    { GLASSLOOP_SERVE_TOKENS: `alice=${ALICE}` },
  );
  children.push(started.child);
  return started;
}

describe("a server restart mid-run", () => {
  it("loses nothing: the next process resumes the run and a reconnecting client reads it to the end", async () => {
    const dir = mkdtempSync(join(tmpdir(), "glassloop-serve-"));
    dirs.push(dir);
    const first = await start(dir);
    const res = await fetch(`${first.url}api/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${ALICE}`, "content-type": "application/json" },
      body: JSON.stringify({
        id: "crash",
        messages: [{ role: "user", parts: [{ type: "text", text: "go" }] }],
      }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let head = "";
    while (parseSse(head).filter((e) => e.data.includes("text-delta")).length < 5)
      head += new TextDecoder().decode((await reader.read()).value);
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));

    const second = await start(dir);
    const resumed = await fetch(`${second.url}api/chat/crash/stream`, {
      headers: { authorization: `Bearer ${ALICE}` },
    });
    expect(resumed.status).toBe(200);
    const events = parseSse(await resumed.text()).map((e) => e.data);
    expect(events.at(-1)).toBe("[DONE]");
    const chunks = events
      .slice(0, -1)
      .map((d) => JSON.parse(d) as { type: string; delta?: string; messageMetadata?: { status?: string } });
    const finish = chunks.at(-1);
    expect(finish?.type).toBe("finish");
    expect(finish?.messageMetadata?.status).toBe("ok");
    // The step in flight at the crash ran again: the answer's last text part is whole.
    const text = chunks
      .filter((c) => c.type === "text-delta")
      .map((c) => c.delta)
      .join("");
    expect(text.endsWith(words(80))).toBe(true);
    const chat = (await (
      await fetch(`${second.url}api/chats/crash`, { headers: { authorization: `Bearer ${ALICE}` } })
    ).json()) as {
      activeRun: unknown;
      messages: unknown[];
    };
    expect(chat.activeRun).toBeNull();
    expect(chat.messages).toHaveLength(2);
  }, 90_000);
});
