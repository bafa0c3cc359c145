import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Message, RunNotResumableError, SessionBusyError } from "glassloop";
import { openToolCalls } from "glassloop/memory";
import { SqliteStore } from "glassloop/store";
import type { FunctionModel } from "glassloop/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleChild } from "../helpers/bundle-child.js";
import { chatJson } from "../helpers/openai-replies.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";
import { crashAgent, crashModelReply, logLine, TURNS } from "./fixtures/crash-agent.js";

const CHILD = fileURLToPath(new URL("./fixtures/crash-child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// Same length, so results that mention the key's length match the uninterrupted run's.
const CHILD_SECRET = "sk-child-SECRET-7f3a9c";
const RESUME_SECRET = "sk-resum-SECRET-41b2de";
const KILLS = 20;

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-crash-"));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await server?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function readLines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
}

/** A small seeded generator (mulberry32), so the kill points are the same on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Runs the child until its execution log has `killAt` lines (plus `delayMs`), then SIGKILLs it.
 * Returns the log as it was when the signal was sent.
 */
function runChild(
  dir: string,
  killAt: number,
  delayMs: number,
  session?: string,
  baseURL?: string,
): Promise<string[]> {
  const child: ChildProcess = spawn(
    process.execPath,
    [childScript, dir, CHILD_SECRET, session ?? "-", ...(baseURL ? [baseURL] : [])],
    { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const log = join(dir, "exec.log");
  return new Promise((resolve, reject) => {
    let atKill: string[] | undefined;
    const poll = setInterval(() => {
      if (atKill) return;
      const lines = readLines(log);
      if (lines.length < killAt) return;
      atKill = lines;
      clearInterval(poll);
      setTimeout(() => {
        atKill = readLines(log);
        child.kill("SIGKILL");
      }, delayMs);
    }, 1);
    child.on("exit", (code, signal) => {
      clearInterval(poll);
      if (signal !== "SIGKILL" && code !== 0) reject(new Error(`child failed (${code}): ${stderr}`));
      else resolve(atKill ?? readLines(log));
    });
  });
}

function dbBytes(dir: string): Buffer {
  const parts = ["g.db", "g.db-wal", "g.db-shm"].map((f) => join(dir, f)).filter(existsSync);
  return Buffer.concat(parts.map((f) => readFileSync(f)));
}

let baseline: Message[];
let server: WireServer;
/** The child, bundled: it starts a few dozen times. */
let childScript: string;
// The loopback model server answers every scenario; the path names the scenario's directory.
const serverDirs = new Map<string, string>();

beforeAll(async () => {
  childScript = await bundleChild(CHILD);
  server = await startWireServer();
  server.handler = (request) => {
    const dir = serverDirs.get(request.path.split("/")[1] ?? "") as string;
    const body = request.body as { messages: { role: string }[] };
    const turn = body.messages.filter((m) => m.role === "tool").length / 2;
    logLine(dir, `model ${turn}`);
    return chatJson({
      ...crashModelReply(turn),
      usage: { prompt_tokens: 10, completion_tokens: 5 },
      delayMs: 5,
    });
  };
  const dir = freshDir();
  const store = new SqliteStore({ path: join(dir, "g.db") });
  const { agent } = crashAgent(dir, store, { apiKey: RESUME_SECRET });
  baseline = (await agent.run("Count to five.")).messages;
  store.close();
  expect(readLines(join(dir, "counter.txt"))).toEqual(["0", "1", "2", "3", "4"]);
});

interface Scenario {
  killAt: number;
  delayMs: number;
  /** Drive the model over HTTP (the OpenAI provider against the loopback server). */
  http?: boolean;
}

/** Kill, resume in this process, and check everything the issue promises. */
async function killAndResume({ killAt, delayMs, http }: Scenario) {
  const dir = freshDir();
  let baseURL: string | undefined;
  if (http) {
    const id = `s${serverDirs.size}`;
    serverDirs.set(id, dir);
    baseURL = `${server.url}/${id}/v1`;
  }
  const atKill = await runChild(dir, killAt, delayMs, undefined, baseURL);
  const store = new SqliteStore({ path: join(dir, "g.db") });
  try {
    const runs = await store.listRuns();
    expect(runs).toHaveLength(1);
    const run = runs[0] as (typeof runs)[number];
    let messages: Message[];
    if (run.status === "running") {
      const { agent } = crashAgent(dir, store, { apiKey: RESUME_SECRET }, { baseURL });
      messages = (await agent.resume(run.runId)).messages;
      await expect(agent.resume(run.runId)).rejects.toBeInstanceOf(RunNotResumableError);
    } else {
      expect(run.status).toBe("ok");
      messages = (await store.loadRun(run.runId)).messages;
    }
    const log = readLines(join(dir, "exec.log"));

    // Same transcript as the uninterrupted run, except calls cut off by the crash.
    expect(messages.map((m) => m.role)).toEqual(baseline.map((m) => m.role));
    const interrupted: number[] = [];
    messages.forEach((m, i) => {
      const base = baseline[i] as Message;
      if (m.role === "tool" && m.content.startsWith("Interrupted:")) {
        expect(m.toolName).toBe("append");
        expect(m.isError).toBe(true);
        interrupted.push(Number(m.toolCallId.split("_")[1]));
      } else {
        expect(m).toEqual(base);
      }
    });
    expect(openToolCalls(messages)).toEqual([]);

    // No tool ran twice: a non-idempotent call never restarts; counter lines are unique.
    const counter = readLines(join(dir, "counter.txt"));
    for (let n = 0; n < TURNS; n++) {
      const starts = log.filter((l) => l.startsWith(`start append ${n} `)).length;
      expect(starts).toBeLessThanOrEqual(1);
      const written = counter.filter((c) => c === String(n)).length;
      if (interrupted.includes(n)) {
        // It was marked started when the process died (its body may not even have begun); it
        // was not run again, so any start in the log is the child's.
        const mine = log.filter((l) => l.startsWith(`start append ${n} `));
        expect(mine.every((l) => l.includes("key=sk-child"))).toBe(true);
        expect(written).toBeLessThanOrEqual(1);
      } else {
        expect(written).toBe(1);
      }
      expect(log.filter((l) => l.startsWith(`start lookup ${n} `)).length).toBeLessThanOrEqual(2);
    }
    // Calls run after the crash got the context the resuming caller passed, not a stored one. The
    // child may still log a line between the parent's last read and the kill taking effect, so the
    // crash point is where the child's lines end (they carry its key), not the parent's snapshot.
    const starts = log.filter((l) => l.startsWith("start "));
    const childStarts = starts.filter((l) => l.includes("key=sk-child"));
    expect(childStarts.length).toBeGreaterThanOrEqual(atKill.filter((l) => l.startsWith("start ")).length);
    const after = starts.slice(childStarts.length);
    for (const line of after) expect(line).toMatch(/key=sk-resum/);

    // Invariant 3: the hidden context never reached the database file.
    const bytes = dbBytes(dir);
    expect(bytes.includes(CHILD_SECRET)).toBe(false);
    expect(bytes.includes(RESUME_SECRET)).toBe(false);
    const reruns = after.filter(
      (l) => l.startsWith("start lookup ") && childStarts.includes(l.replace("sk-resum", "sk-child")),
    ).length;
    return { interrupted: interrupted.length, resumed: run.status === "running", reruns };
  } finally {
    store.close();
  }
}

describe("crash and resume with a real child process killed by SIGKILL", () => {
  it(`recovers from ${KILLS} kill points: no duplicate message, no tool run twice, no orphan`, async () => {
    const linesPerRun = TURNS * 5 + 1;
    const random = seeded(20261130);
    const scenarios: Scenario[] = Array.from({ length: KILLS }, (_, i) => ({
      // Half the kills land on a tool's first log line (inside its sleep), half anywhere.
      killAt: i % 2 === 0 ? 2 + 5 * Math.floor(random() * TURNS) : 1 + Math.floor(random() * linesPerRun),
      delayMs: i % 2 === 0 ? 0 : Math.floor(random() * 12),
    }));
    const outcomes = [];
    // Two children at a time: the machine has two cores.
    for (let i = 0; i < scenarios.length; i += 2) {
      outcomes.push(...(await Promise.all(scenarios.slice(i, i + 2).map(killAndResume))));
    }
    expect(outcomes.filter((o) => o.resumed).length).toBeGreaterThanOrEqual(KILLS / 2);
    // Both policies were exercised: a non-idempotent call cut off (interrupted result) and an
    // idempotent one re-run.
    expect(outcomes.some((o) => o.interrupted > 0)).toBe(true);
    expect(outcomes.some((o) => o.reruns > 0)).toBe(true);
  }, 120_000);

  it("recovers the same way when the model is a real provider over loopback HTTP", async () => {
    const outcomes = [];
    for (const killAt of [2, 8, 13, 20])
      outcomes.push(await killAndResume({ killAt, delayMs: 0, http: true }));
    expect(outcomes.every((o) => o.resumed)).toBe(true);
    expect(server.unexpected).toBe(0);
  }, 60_000);

  it("a second process's run on a session in use is refused clearly, never interleaved", async () => {
    const dir = freshDir();
    const store = new SqliteStore({ path: join(dir, "g.db") });
    try {
      const { agent, model } = crashAgent(dir, store, { apiKey: RESUME_SECRET }, { session: true });
      const child = runChild(dir, Number.POSITIVE_INFINITY, 0, "chat");
      while (!readLines(join(dir, "exec.log")).some((l) => l.startsWith("start append 1"))) {
        await new Promise((r) => setTimeout(r, 2));
      }
      const busy = agent.run("Me too", { session: "chat" });
      await expect(busy).rejects.toBeInstanceOf(SessionBusyError);
      await expect(agent.run("Me too", { session: "chat" })).rejects.toMatchObject({ holderState: "live" });
      expect((model as FunctionModel).requests).toHaveLength(0);
      await child;
      // Once the other process is done, the session holds its whole turn and is free again.
      expect((await store.readSession("chat")).length).toBe(baseline.length - 1);
      expect((await store.listSessions())[0]?.lockedBy).toBeUndefined();
    } finally {
      store.close();
    }
  }, 30_000);

  it("a session held by a killed run is refused clearly until the run is resumed; then the session has the turn", async () => {
    const dir = freshDir();
    await runChild(dir, 7, 0, "chat");
    const store = new SqliteStore({ path: join(dir, "g.db") });
    try {
      const { agent } = crashAgent(dir, store, { apiKey: RESUME_SECRET }, { session: true });
      const busy = agent.run("Another turn", { session: "chat" });
      await expect(busy).rejects.toBeInstanceOf(SessionBusyError);
      await expect(agent.run("Another turn", { session: "chat" })).rejects.toThrow(
        /interrupted run run_.*agent\.resume/,
      );
      const [run] = await store.listRuns({ sessionId: "chat" });
      const result = await agent.resume(run?.runId ?? "");
      expect(await store.readSession("chat")).toEqual(result.messages.slice(1));
      expect((await store.listSessions())[0]?.lockedBy).toBeUndefined();
    } finally {
      store.close();
    }
  }, 30_000);
});
