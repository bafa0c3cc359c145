import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ApprovalRequiredError } from "glassloop";
import { OpenAIChatModel } from "glassloop/models";
import { SqliteStore } from "glassloop/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyUsage } from "../../src/loop/usage.js";
import { chatJson, sentBody } from "../helpers/openai-replies.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";
import { EFFECTS, raceAgent } from "./fixtures/race-agent.js";

const CHILD = fileURLToPath(new URL("./fixtures/race-child.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PAIRS = 20;
// A pid above Linux's pid_max: the process that "crashed" is certainly gone.
const DEAD_PID = 2_147_483_000;
const STEP = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, toolCalls: 0, durationMs: 0 };

let server: WireServer;
let dir: string;
beforeAll(async () => {
  server = await startWireServer();
  // The model asks for the tool its task names, once; after a tool result it answers.
  server.handler = (request) => {
    const { messages } = sentBody<{ messages: { role: string; content?: string | null }[] }>([request], 0);
    const last = messages.at(-1);
    const task = /^(charge|ship) (order-\d+)$/.exec(last?.role === "user" ? (last.content ?? "") : "");
    if (!task) return chatJson({ text: "done" });
    return chatJson({
      toolCalls: [{ id: "call_1", name: task[1] as string, arguments: JSON.stringify({ order: task[2] }) }],
    });
  };
  dir = mkdtempSync(join(tmpdir(), "glassloop-race-"));
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface ChildResult {
  runId: string;
  outcome: string;
  code?: string;
  message?: string;
}

/** Starts a child that resumes `runs` once it reads "go"; resolves when it printed "ready". */
function startChild(db: string, runs: { runId: string; approve?: string }[]) {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", CHILD, dir, db, `${server.url}/v1`, JSON.stringify(runs)],
    { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d) => {
      stdout += String(d);
      if (stdout.startsWith("ready\n")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`child exited ${code} before ready: ${stderr}`)));
  });
  const done = new Promise<ChildResult[]>((resolve, reject) =>
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`child exited ${code}: ${stderr}`));
      const lines = stdout.split("\n").slice(1).filter(Boolean);
      resolve(lines.map((l) => JSON.parse(l) as ChildResult));
    }),
  );
  return { ready, done, go: () => child.stdin?.end("go\n") };
}

describe("two processes resuming one run at the same moment", () => {
  it(`one resume wins: ${PAIRS} simultaneous pairs (paused and interrupted runs), each side effect happens exactly once`, async () => {
    const db = join(dir, "race.db");
    const store = new SqliteStore({ path: db });
    const model = new OpenAIChatModel({
      model: "gpt-4o-mini",
      baseURL: `${server.url}/v1`,
      apiKey: "sk-race-0000",
    });
    const agent = raceAgent(dir, store, model);
    const runs: { runId: string; approve?: string; effect: string }[] = [];
    for (let i = 0; i < PAIRS / 2; i++) {
      // A run paused for approval of `charge`.
      const paused = await agent.run(`charge order-${i}`).catch((e: unknown) => e);
      expect(paused).toBeInstanceOf(ApprovalRequiredError);
      runs.push({
        runId: (paused as ApprovalRequiredError).runId,
        approve: "call_1",
        effect: `charge order-${i}`,
      });
    }
    for (let i = PAIRS / 2; i < PAIRS; i++) {
      // A run whose process died after the model asked for `ship` and before it ran.
      const runId = `run_interrupted_${i}`;
      const call = { id: "call_1", name: "ship", arguments: JSON.stringify({ order: `order-${i}` }) };
      await store.createRun({
        runId,
        agent: "race",
        model: model.id,
        input: `ship order-${i}`,
        owner: { pid: DEAD_PID, host: hostname() },
        messages: [
          { role: "user", content: `ship order-${i}` },
          { role: "assistant", content: "", toolCalls: [call] },
        ],
        // The model call of step 1 was made; the crash came before its tool ran.
        usage: { ...emptyUsage(false), requests: 1, steps: [{ ...STEP, step: 1 }] },
        progress: { pending: [{ call, state: "queued" }] },
        tools: { names: agent.registry.list().map((t) => t.name) },
      });
      runs.push({ runId, effect: `ship order-${i}` });
    }
    store.close();
    expect(existsSync(join(dir, EFFECTS))).toBe(false);

    const spec = runs.map(({ runId, approve }) => ({ runId, ...(approve && { approve }) }));
    const a = startChild(db, spec);
    const b = startChild(db, spec);
    await Promise.all([a.ready, b.ready]);
    a.go();
    b.go();
    const [ra, rb] = await Promise.all([a.done, b.done]);

    const effects = readFileSync(join(dir, EFFECTS), "utf8").split("\n").filter(Boolean);
    for (const run of runs) {
      expect(
        effects.filter((line) => line.startsWith(`${run.effect} `)),
        run.runId,
      ).toHaveLength(1);
      const outcomes = [ra, rb].map((r) => r.find((x) => x.runId === run.runId));
      expect(
        outcomes.filter((o) => o?.outcome === "ok"),
        run.runId,
      ).toHaveLength(1);
      const loser = outcomes.find((o) => o?.outcome !== "ok");
      // The loser read the run while the winner drove it (busy), or after the winner finished it
      // (ended): either way a refused claim, never a decision error or a second run.
      expect(loser, run.runId).toMatchObject({ code: "run_not_resumable" });
      expect(["RunBusyError", "RunNotResumableError"], run.runId).toContain(loser?.outcome);
    }
    expect(effects).toHaveLength(PAIRS);
    const after = new SqliteStore({ path: db });
    for (const run of runs) expect((await after.loadRun(run.runId)).status).toBe("ok");
    after.close();
  });
});
