import { existsSync, readdirSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { Agent, tool } from "glassloop";
import { OpenAIChatModel } from "glassloop/models";
import { SqliteStore } from "glassloop/store";
import { startViewer, TraceWriter } from "glassloop/trace";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tempDir } from "../helpers/traced-run.js";
import { startWireServer } from "../helpers/wire-server.js";

const FAKE_KEY = "sk-proj-FAKE0000glassloop0000redaction0000test";
const DB_PASSWORD = "hunter2-Pa55word-only-in-context";

class Database {
  constructor(readonly url: string) {}
}

function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve(body));
    })
      .on("error", reject)
      .end();
  });
}

const completion = (message: object, finish: string) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 1,
  model: "gpt-4o-mini",
  choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
  usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 },
});

/**
 * A run with a fake key and a hidden-context password: the key goes over the wire (and, with
 * `echo`, a hostile or buggy server sends it back in its answer); the tool's failure quotes the
 * context, which puts the password in the trace's error detail. Returns everything persisted or
 * served: the trace, the store's files, and every viewer response.
 */
async function leakyRun(
  echo: boolean,
): Promise<{ trace: string; store: string; served: string[]; output: unknown; authorization: unknown }> {
  const server = await startWireServer();
  const dir = tempDir();
  server.enqueue(
    {
      json: completion(
        {
          content: null,
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "count_users", arguments: "{}" } },
          ],
        },
        "tool_calls",
      ),
    },
    {
      json: completion(
        { content: echo ? `Done. By the way, your key is ${FAKE_KEY}.` : "I could not count them." },
        "stop",
      ),
    },
  );
  const env = { OPENAI_API_KEY: FAKE_KEY };
  const context = new Database(`postgres://app:${DB_PASSWORD}@db.internal/app`);
  const writer = new TraceWriter({ dir, redaction: { env, context } });
  const storePath = join(tempDir(), "glassloop.db");
  const store = new SqliteStore({ path: storePath });
  const agent = new Agent({
    store,
    model: new OpenAIChatModel({ model: "gpt-4o-mini", baseURL: `${server.url}/v1`, apiKey: FAKE_KEY }),
    context,
    tools: [
      tool({
        name: "count_users",
        description: "Counts users.",
        input: z.object({}),
        context: Database,
        run: (_args, { context: db }) => {
          throw new Error(`connection refused: ${db.url}`);
        },
      }),
    ],
  });
  const result = await agent.run("How many users?", { onEvent: writer.onEvent });
  store.close();
  const files = readdirSync(dir).map((f) => join(dir, f));
  expect(files).toHaveLength(1);
  const trace = readFileSync(files[0] as string, "utf8");
  const stored = [storePath, `${storePath}-wal`]
    .filter(existsSync)
    .map((f) => readFileSync(f).toString("latin1"));
  const viewer = await startViewer({ dir, redaction: { env } });
  try {
    const page = await get(viewer.url);
    const assets = [...page.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThan(0);
    const served = [
      page,
      ...(await Promise.all(assets.map((a) => get(viewer.url + a)))),
      await get(`${viewer.url}api/runs`),
      await get(`${viewer.url}api/runs/${result.runId}`),
    ];
    expect(served.at(-1)).toContain("connection refused: [REDACTED]");
    return {
      trace,
      store: stored.join("\n"),
      served,
      output: result.output,
      authorization: server.requests[0]?.headers.authorization,
    };
  } finally {
    await viewer.close();
    await server.close();
  }
}

const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe("redaction", () => {
  it("a run with a fake API key and a hidden-context secret leaves neither in the trace, the store or the viewer", async () => {
    const run = await leakyRun(false);
    expect(run.authorization).toBe(`Bearer ${FAKE_KEY}`); // the key really was used
    expect(run.trace).toContain("connection refused: [REDACTED]"); // the password really was there to leak
    expect(run.store).toContain("How many users?");
    for (const text of [run.trace, run.store, ...run.served]) {
      expect(count(text, FAKE_KEY)).toBe(0);
      expect(count(text, DB_PASSWORD)).toBe(0);
      expect(text).not.toContain("hunter2");
    }
  });

  it("a key the provider echoes back into the answer is scrubbed from the trace and the viewer", async () => {
    const run = await leakyRun(true);
    expect(run.output).toContain(FAKE_KEY); // the caller gets the answer as it came
    expect(run.trace).toContain("your key is [REDACTED]");
    for (const text of [run.trace, ...run.served]) {
      expect(count(text, FAKE_KEY)).toBe(0);
      expect(count(text, DB_PASSWORD)).toBe(0);
    }
  });

  it("the viewer scrubs key-shaped strings even from a trace it did not write", async () => {
    const dir = tempDir();
    const leaked = "sk-ant-api03-LEAKEDleakedLEAKEDleaked";
    const events = [
      { type: "run_start", runId: "run_x", time: 1, model: "m:x", input: `use ${leaked}` },
      {
        type: "model_request",
        runId: "run_x",
        time: 2,
        step: 1,
        model: "m:x",
        attempt: 1,
        body: { headers: { "x-api-key": "short" } },
      },
      {
        type: "run_end",
        runId: "run_x",
        time: 3,
        status: "ok",
        usage: {
          requests: 1,
          inputTokens: 0,
          outputTokens: 0,
          cachedInputTokens: 0,
          toolCalls: 0,
          durationMs: 2,
          steps: [],
        },
        messages: [],
      },
    ];
    (await import("node:fs")).writeFileSync(
      join(dir, "run_x.jsonl"),
      events.map((e) => JSON.stringify(e)).join("\n"),
    );
    const viewer = await startViewer({ dir, redaction: { env: {} } });
    try {
      const run = await get(`${viewer.url}api/runs/run_x`);
      const list = await get(`${viewer.url}api/runs`);
      for (const body of [run, list]) expect(body).not.toContain(leaked);
      expect(run).not.toContain('"short"');
    } finally {
      await viewer.close();
    }
  });
});
