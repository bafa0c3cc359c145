/**
 * One rate limit across scale-out workers: two worker processes, each with its own connections,
 * share a limit through Postgres (PostgresRateLimiter). Counted at the server, in a process of its
 * own: no span of one window ever holds more requests than the limit, though each worker alone
 * would have sent all of its calls at once.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshSchema, POSTGRES_SKIP, postgresUrl } from "../helpers/postgres.js";

const RPM = 8;
const WINDOW_MS = 1_000;
const CALLS_PER_WORKER = 10;

// Answers every Chat Completions request at once and records when each arrived.
const COUNTING_SERVER = `
import { createServer } from "node:http";
const arrivals = [];
const server = createServer((req, res) => {
  const at = performance.timeOrigin + performance.now();
  let text = "";
  req.on("data", (d) => { text += d; });
  req.on("end", () => {
    if (req.method === "GET") { res.end(JSON.stringify(arrivals)); return; }
    arrivals.push({ at, who: JSON.parse(text).messages[0].content.split(" ")[0] });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: "x", object: "chat.completion", created: 1, model: "gpt-4o-mini",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "ok" } }],
      usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } }));
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

const WORKER = fileURLToPath(new URL("./fixtures/rate-limit-worker.ts", import.meta.url));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill();
});

/** The most arrivals inside any span of `spanMs`. */
function busiest(times: number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while ((sorted[j] as number) - (sorted[i] as number) >= spanMs) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

function output(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d;
    });
    child.stderr?.on("data", (d: Buffer) => {
      err += d;
    });
    child.on("exit", (code) =>
      code === 0 ? resolve(out.trim()) : reject(new Error(`worker exited ${code}: ${err}`)),
    );
  });
}

describe.skipIf(POSTGRES_SKIP)("a rate limit shared by scale-out workers through Postgres", () => {
  let base = "";
  beforeAll(async () => {
    const server = spawn(process.execPath, ["--input-type=module", "-e", COUNTING_SERVER], { stdio: "pipe" });
    children.push(server);
    const port = await new Promise<string>((resolve) =>
      server.stdout?.once("data", (d: Buffer) => resolve(d.toString().trim())),
    );
    base = `http://127.0.0.1:${port}`;
  });

  it("two worker processes never send more than the limit in any window, counted at the server", async () => {
    const url = await postgresUrl();
    const schema = freshSchema();
    const workers = ["alpha", "beta"].map((name) => {
      const child = spawn(process.execPath, ["--import", "tsx", WORKER], {
        stdio: "pipe",
        env: {
          ...process.env,
          RATE_PG_URL: url,
          RATE_SCHEMA: schema,
          RATE_BASE_URL: `${base}/v1`,
          RATE_RPM: String(RPM),
          RATE_WINDOW_MS: String(WINDOW_MS),
          RATE_CALLS: String(CALLS_PER_WORKER),
          RATE_WORKER: name,
        },
      });
      children.push(child);
      return output(child);
    });
    const reports = (await Promise.all(workers)).map(
      (line) => JSON.parse(line) as { calls: number; waited: number },
    );
    const arrivals = (await (await fetch(`${base}/arrivals`)).json()) as { at: number; who: string }[];

    expect(arrivals).toHaveLength(2 * CALLS_PER_WORKER);
    expect(reports.map((r) => r.calls)).toEqual([CALLS_PER_WORKER, CALLS_PER_WORKER]);
    // Both workers' calls reached the server, and calls waited for room the other worker took.
    expect(new Set(arrivals.map((a) => a.who))).toEqual(new Set(["alpha", "beta"]));
    expect(reports.reduce((n, r) => n + r.waited, 0)).toBeGreaterThan(0);
    expect(
      busiest(
        arrivals.map((a) => a.at),
        WINDOW_MS,
      ),
    ).toBeLessThanOrEqual(RPM);
    // 20 requests at 8 a window take at least two windows after the first eight.
    const span = Math.max(...arrivals.map((a) => a.at)) - Math.min(...arrivals.map((a) => a.at));
    expect(span).toBeGreaterThanOrEqual(2 * WINDOW_MS - 50);
  }, 60_000);
});
