/**
 * The durable-run promises on a PostgresStore: a run killed by SIGKILL is resumed without running
 * a finished tool twice, a run paused for approval is resumed by a fresh agent, and two processes
 * taking turns on one session never interleave them.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, ApprovalRequiredError, type Message, RunNotResumableError, tool } from "glassloop";
import { openToolCalls } from "glassloop/memory";
import { PostgresStore } from "glassloop/postgres";
import { ScriptedModel } from "glassloop/testing";
import { NOT_APPROVED } from "glassloop/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { bundleChild } from "../helpers/bundle-child.js";
import { freshSchema, POSTGRES_SKIP, postgresUrl } from "../helpers/postgres.js";
import { crashAgent, TURNS } from "./fixtures/crash-agent.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CRASH_CHILD = fileURLToPath(new URL("./fixtures/crash-child.ts", import.meta.url));
const SESSION_CHILD = fileURLToPath(new URL("./fixtures/pg-session-child.ts", import.meta.url));
const SECRET = "sk-child-SECRET-7f3a9c";
const RESUME_SECRET = "sk-resum-SECRET-41b2de";

const readLines = (file: string) =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];

describe.skipIf(POSTGRES_SKIP !== undefined)("durable runs on PostgresStore", () => {
  let url: string;
  const dirs: string[] = [];
  const stores: PostgresStore[] = [];
  async function open(schema: string) {
    const store = await PostgresStore.connect({ url, schema });
    stores.push(store);
    return store;
  }
  function freshDir() {
    const dir = mkdtempSync(join(tmpdir(), "glassloop-pg-durable-"));
    dirs.push(dir);
    return dir;
  }
  /** The crash child, bundled: it starts once per kill point. */
  let crashChild: string;
  beforeAll(async () => {
    url = await postgresUrl();
    crashChild = await bundleChild(CRASH_CHILD);
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the crash child on `schema` until its log has `killAt` lines, then SIGKILLs it. */
  function killChild(dir: string, schema: string, killAt: number): Promise<void> {
    const child: ChildProcess = spawn(process.execPath, [crashChild, dir, SECRET, "-"], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, GLASSLOOP_TEST_PG_URL: url, GLASSLOOP_TEST_PG_SCHEMA: schema },
    });
    let stderr = "";
    child.stderr?.on("data", (d) => {
      stderr += String(d);
    });
    return new Promise((resolve, reject) => {
      const poll = setInterval(() => {
        if (readLines(join(dir, "exec.log")).length >= killAt) child.kill("SIGKILL");
      }, 1);
      child.on("exit", (code, signal) => {
        clearInterval(poll);
        if (signal !== "SIGKILL" && code !== 0) reject(new Error(`child failed (${code}): ${stderr}`));
        else resolve();
      });
    });
  }

  it("a run killed inside a tool (and one killed after a tool returned) resumes: no tool twice, no orphan, the same transcript", async () => {
    const baselineDir = freshDir();
    const baseline = (
      await crashAgent(baselineDir, await open(freshSchema()), { apiKey: RESUME_SECRET }).agent.run(
        "Count to five.",
      )
    ).messages;
    // Line 2 is the first `start append 0` (killed mid-tool); line 9 falls after turn 1's results.
    for (const killAt of [2, 9]) {
      const dir = freshDir();
      const schema = freshSchema();
      await killChild(dir, schema, killAt);
      const store = await open(schema);
      const [run] = await store.listRuns();
      expect(run?.status).toBe("running");
      const { agent } = crashAgent(dir, store, { apiKey: RESUME_SECRET });
      const messages: Message[] = (await agent.resume(run?.runId ?? "")).messages;
      await expect(agent.resume(run?.runId ?? "")).rejects.toBeInstanceOf(RunNotResumableError);
      expect(messages.map((m) => m.role)).toEqual(baseline.map((m) => m.role));
      expect(openToolCalls(messages)).toEqual([]);
      const interrupted = messages.filter((m) => m.role === "tool" && m.content.startsWith("Interrupted:"));
      for (const m of interrupted) expect(m).toMatchObject({ toolName: "append", isError: true });
      messages.forEach((m, i) => {
        if (!(m.role === "tool" && m.content.startsWith("Interrupted:"))) expect(m).toEqual(baseline[i]);
      });
      const log = readLines(join(dir, "exec.log"));
      for (let n = 0; n < TURNS; n++)
        expect(
          log.filter((l) => l.startsWith(`start append ${n} `)).length,
          `append ${n}`,
        ).toBeLessThanOrEqual(1);
      expect(new Set(readLines(join(dir, "counter.txt"))).size).toBe(
        readLines(join(dir, "counter.txt")).length,
      );
      if (killAt === 2) expect(interrupted).toHaveLength(1);
      // The hidden context never reached the database.
      const stored = JSON.stringify(await store.loadRun(run?.runId ?? ""));
      expect(stored).not.toContain(SECRET);
      expect(stored).not.toContain(RESUME_SECRET);
    }
  }, 60_000);

  it("a run paused for approval is stored; a fresh agent resumes it with decisions", async () => {
    const store = await open(freshSchema());
    const ran: string[] = [];
    const tools = [
      tool({
        name: "transfer",
        description: "Moves money.",
        input: z.object({ amount: z.number() }),
        needsApproval: ({ amount }) => amount > 100,
        run: ({ amount }) => {
          ran.push(`transfer ${amount}`);
          return `moved ${amount}`;
        },
      }),
    ];
    const model = new ScriptedModel([
      {
        toolCalls: [
          { id: "small", name: "transfer", args: { amount: 5 } },
          { id: "big", name: "transfer", args: { amount: 500 } },
        ],
      },
      { text: "done" },
    ]);
    const paused = (await new Agent({ model, tools, store })
      .run("Pay", { session: "s" })
      .catch((e) => e)) as ApprovalRequiredError;
    expect(paused).toBeInstanceOf(ApprovalRequiredError);
    expect(ran).toEqual([]);
    const other = await open(store.schema);
    expect((await other.loadRun(paused.runId)).status).toBe("awaiting_approval");
    await expect(
      new Agent({ model, tools, store: other }).run("Other", { session: "s" }),
    ).rejects.toMatchObject({
      holderState: "awaiting_approval",
    });
    const result = await new Agent({ model, tools, store: other }).resume(paused.runId, { reject: ["big"] });
    expect(ran).toEqual(["transfer 5"]);
    expect(result.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "moved 5",
      NOT_APPROVED,
    ]);
    expect(await store.readSession("s")).toEqual(result.messages);
  });

  it("two processes taking turns on one session: every turn saved whole, none interleaved", async () => {
    const schema = freshSchema();
    const TURNS_EACH = 6;
    const startChild = (name: string) => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", SESSION_CHILD, url, schema, name, String(TURNS_EACH)],
        { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] },
      );
      let out = "";
      let err = "";
      child.stderr.on("data", (d) => {
        err += String(d);
      });
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (d) => {
          out += String(d);
          if (out.startsWith("ready\n")) resolve();
        });
        child.on("exit", (code) => reject(new Error(`child exited ${code} before ready: ${err}`)));
      });
      const done = new Promise<{ saved: number; busy: number }>((resolve, reject) =>
        child.on("exit", (code) => {
          if (code !== 0) return reject(new Error(err));
          const [saved, busy] = out.split("\n")[1]?.split(" ").map(Number) ?? [];
          resolve({ saved: saved ?? 0, busy: busy ?? 0 });
        }),
      );
      return { ready, done, go: () => child.stdin.end("go\n") };
    };
    const children = [startChild("A"), startChild("B")];
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.go();
    const results = await Promise.all(children.map((c) => c.done));
    expect(results.map((r) => r.saved)).toEqual([TURNS_EACH, TURNS_EACH]);
    // The turns overlapped: at least one process found the session held by the other and waited.
    expect(results[0]!.busy + results[1]!.busy).toBeGreaterThan(0);
    const store = await open(schema);
    const messages = await store.readSession("shared");
    // Each turn is four messages: the task, the call, its result, the answer, all with one tag.
    expect(messages).toHaveLength(2 * TURNS_EACH * 4);
    const tags: string[] = [];
    for (let i = 0; i < messages.length; i += 4) {
      const [task, call, result, end] = messages.slice(i, i + 4);
      const tag = task?.role === "user" ? task.content : "";
      expect(call?.role === "assistant" && call.toolCalls?.[0]?.arguments).toBe(JSON.stringify({ tag }));
      expect(result).toMatchObject({ role: "tool", content: tag });
      expect(end).toMatchObject({ role: "assistant", content: `done ${tag}` });
      tags.push(tag);
    }
    // Each process's turns are in its own order, and all of them are there.
    const expected = (name: string) => Array.from({ length: TURNS_EACH }, (_, i) => `${name} ${i}`);
    expect(tags.filter((t) => t.startsWith("A"))).toEqual(expected("A"));
    expect(tags.filter((t) => t.startsWith("B"))).toEqual(expected("B"));
    expect(await store.listRuns({ sessionId: "shared", status: "ok" })).toHaveLength(2 * TURNS_EACH);
    expect((await store.listSessions())[0]?.lockedBy).toBeUndefined();
  }, 60_000);
});
