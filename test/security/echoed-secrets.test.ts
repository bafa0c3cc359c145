/**
 * A model that repeats the API key got it into `eval --json`,
 * `result.json`, `enqueue --follow`'s output and the workers' Postgres (DBOS's step outputs and
 * workflow output, `glassloop.runs`, the run messages, `glassloop_scale.run_events`). Here the
 * hostile server repeats the key it was sent (its `Authorization` header), and every one of those
 * places is read back directly: none may hold the key.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPg, type PgPoolConfig } from "../../src/store/postgres/pg-driver.js";
import { cleanEnv, cliArgv, runCli, tempCwd } from "../helpers/cli.js";
import { chatJson, chatSse } from "../helpers/openai-replies.js";
import { POSTGRES_SKIP } from "../helpers/postgres.js";
import { type RecordedRequest, startWireServer, type WireServer } from "../helpers/wire-server.js";
import { freshDatabase } from "../scale/scale-harness.js";

const KEY = "sk-test-echoed-0123456789abcdefghij";

/** The key as the server received it: the bearer token of the request. */
function sentKey(request: RecordedRequest): string {
  return String(request.headers.authorization ?? "").replace(/^Bearer /, "");
}

/**
 * The hostile model: a tool call whose arguments repeat the key, then an answer that does; a
 * judge (offered `final_result`) gives the key as its reason.
 */
function echoingModel(request: RecordedRequest, index: number) {
  const key = sentKey(request);
  const body = request.body as { messages: { role: string }[]; tools?: { function: { name: string } }[] };
  if (body.tools?.some((t) => t.function.name === "final_result"))
    return chatJson({
      toolCalls: [
        {
          id: `j_${index}`,
          name: "final_result",
          arguments: JSON.stringify({ score: 0, reason: `key ${key}` }),
        },
      ],
    });
  if (!body.messages.some((m) => m.role === "tool") && body.tools?.some((t) => t.function.name === "note"))
    return chatJson({
      toolCalls: [
        { id: `n_${index}`, name: "note", arguments: JSON.stringify({ text: `the key is ${key}` }) },
      ],
    });
  return chatJson({ text: `Paris. Your key is ${key}` }, index);
}

/** Every file under `dir`, read whole. */
function allFiles(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))
    .join("\n");
}

describe("an echoed key reaches no eval output", () => {
  let wire: WireServer;
  beforeAll(async () => {
    wire = await startWireServer();
    wire.handler = echoingModel;
  });
  afterAll(() => wire?.close());

  it("eval --json, result.json and the eval's traces hold no key", async () => {
    const cwd = tempCwd("glassloop-eval-secrets-");
    const env = cleanEnv({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${wire.url}/v1` });
    const run = await runCli(
      ["eval", join(import.meta.dirname, "fixtures/hostile.eval.ts"), "--out", "out", "--json"],
      {
        cwd,
        env,
        timeoutMs: 60_000,
      },
    );
    expect(wire.requests.length).toBeGreaterThan(0);
    expect(sentKey(wire.requests[0] as RecordedRequest)).toBe(KEY);
    const printed = JSON.parse(run.stdout) as {
      result: { cases: { trials: { scores: { reason?: string }[] }[] }[] };
    };
    const reasons = printed.result.cases.flatMap((c) =>
      c.trials.flatMap((t) => t.scores.map((s) => s.reason)),
    );
    expect(reasons).toContain("key [REDACTED]");
    expect(run.stdout + run.stderr).not.toContain(KEY);
    const written = readFileSync(join(cwd, "out", "result.json"), "utf8");
    expect(written).toContain("[REDACTED]");
    expect(allFiles(join(cwd, "out"))).not.toContain(KEY);
  });
});

describe("a secret cut in half by a clipped line is still scrubbed", () => {
  let wire: WireServer;
  beforeAll(async () => {
    wire = await startWireServer();
  });
  afterAll(() => wire?.close());

  it("run: arguments padded so the 400-character clip cuts the secret show none of it", async () => {
    // Not a credential shape: only the literal secret (whole) would be found after the clip.
    const token = "zq9-Tb7x-literal-service-token-value";
    // `{"expression":"` is 15 characters: the clip keeps 399, so the first 20 of the token would show.
    const args = JSON.stringify({ expression: `${"1".repeat(399 - 15 - 20)}${token}` });
    wire.enqueue(
      chatSse({ toolCalls: [{ id: "call_pad", name: "calculator", arguments: args }] }),
      chatSse({ text: "ok" }),
    );
    const run = await runCli(["run", "--tools", "calculator", "compute"], {
      cwd: tempCwd(),
      env: cleanEnv({ OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `${wire.url}/v1`, BILLING_SERVICE_TOKEN: token }),
      timeoutMs: 60_000,
    });
    expect(run.stderr).toContain("→ calculator");
    expect(run.stdout + run.stderr).not.toContain(token.slice(0, 12));
  });
});

describe.skipIf(POSTGRES_SKIP)("an echoed key reaches no table of the workers' Postgres", () => {
  let url: string;
  let wire: WireServer;
  let worker: ChildProcess;
  let workerErr = "";

  beforeAll(async () => {
    url = await freshDatabase();
    wire = await startWireServer();
    wire.handler = echoingModel;
    const [command, ...args] = cliArgv(
      "worker",
      join(import.meta.dirname, "fixtures/echo-worker.ts"),
      "--postgres",
      url,
      "--id",
      "echo-worker",
      "--poll-ms",
      "50",
    ) as [string, ...string[]];
    // The key is the worker's alone: the client below runs without it.
    worker = spawn(command, args, {
      stdio: ["ignore", "ignore", "pipe"],
      env: cleanEnv({ OPENAI_API_KEY: KEY, ECHO_WIRE_URL: wire.url }),
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`worker not ready: ${workerErr}`)), 50_000);
      worker.stderr?.on("data", (d: Buffer) => {
        workerErr += d.toString("utf8");
        if (workerErr.includes("consuming queue")) {
          clearTimeout(timer);
          resolve();
        }
      });
      worker.on("exit", (code) => reject(new Error(`worker exited ${code}: ${workerErr}`)));
    });
  }, 60_000);

  afterAll(async () => {
    worker?.kill("SIGTERM");
    await wire?.close();
  });

  it("enqueue --follow, --json, DBOS's tables, glassloop.runs and its messages, run_events", async () => {
    const env = cleanEnv();
    const followed = await runCli(
      ["enqueue", "echo", "What is the capital of France?", "--postgres", url, "--follow"],
      {
        cwd: tempCwd(),
        env,
        timeoutMs: 60_000,
      },
    );
    expect(followed.code, followed.stderr).toBe(0);
    expect(sentKey(wire.requests[0] as RecordedRequest)).toBe(KEY);
    // The run happened as scripted: the tool got the (scrubbed) key, and the answer quoted it.
    expect(followed.stderr).toContain("note(");
    expect(followed.stdout).toContain("Your key is [REDACTED]");
    expect(followed.stdout + followed.stderr).not.toContain(KEY);

    const json = await runCli(["enqueue", "echo", "Again?", "--postgres", url, "--json"], {
      cwd: tempCwd(),
      env,
      timeoutMs: 60_000,
    });
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toContain("[REDACTED]");
    expect(json.stdout).not.toContain(KEY);

    // Every row of every table the workers write, read straight from Postgres.
    const pg = loadPg();
    const pool = new pg.Pool({ connectionString: url, max: 1 } as PgPoolConfig);
    try {
      const { rows: tables } = await pool.query<{ table_schema: string; table_name: string }>(
        `select table_schema, table_name from information_schema.tables
         where table_schema in ('dbos', 'glassloop', 'glassloop_scale') and table_type = 'BASE TABLE'`,
      );
      const names = tables.map((t) => `${t.table_schema}.${t.table_name}`);
      expect(names).toEqual(
        expect.arrayContaining([
          "dbos.operation_outputs",
          "dbos.workflow_status",
          "glassloop_scale.run_events",
        ]),
      );
      expect(names.some((n) => n.startsWith("glassloop.run"))).toBe(true);
      let everything = "";
      for (const t of tables) {
        const { rows } = await pool.query<{ row: string }>(
          `select t::text as row from "${t.table_schema}"."${t.table_name}" t`,
        );
        everything += rows.map((r) => r.row).join("\n");
      }
      // The echoes are there, scrubbed: in the events, the step outputs and the run records.
      expect(everything).toContain("[REDACTED]");
      expect(everything).not.toContain(KEY);
    } finally {
      await pool.end();
    }
  });
});
