/**
 * Secrets against every output channel, attacked as a hostile server would: it echoes the key and
 * other secrets of the environment into the answer, and quotes the base URL (credentials and all)
 * in its errors. The real CLI runs against a local server; stdout, stderr, `--json`,
 * `--show-prompt`, the trace and the SQLite store (with its WAL) are searched for every secret.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanEnv, runCli, tempCwd, useWireServer } from "../helpers/cli.js";
import { chatSse } from "../helpers/openai-replies.js";
import { sseData } from "../helpers/wire-server.js";

const KEY = "sk-test-secrets-channel-0123456789";
const wire = useWireServer(KEY);

/**
 * Secrets that match no built-in key shape, only their variable's name, each a case where the
 * trace and the CLI used to disagree: 7 characters (the trace wanted 8), a bare `_KEY` suffix (the
 * trace's names lacked it), `PAT` and `PGPASSWORD` (neither knew them).
 */
const NAMED = {
  DB_PASSWORD: "hunter7",
  SERVICE_KEY: "svc-4f9a1c2e",
  GITHUB_PAT: "patvalue-8c1d",
  PGPASSWORD: "pgsecret-77",
  SESSION_COOKIE: "sid-0a1b2c3d",
};
const ALL = [KEY, ...Object.values(NAMED)];

/** Every byte the run left behind: what it printed, its trace and its database (and WAL). */
function leftBehind(cwd: string, printed: string): string {
  let all = printed;
  for (const file of ["t.jsonl", ".glassloop/glassloop.db", ".glassloop/glassloop.db-wal"]) {
    const path = join(cwd, file);
    if (existsSync(path)) all += readFileSync(path).toString("latin1");
  }
  return all;
}

function leaked(text: string, secrets: readonly string[]): string[] {
  return secrets.filter((secret) => text.includes(secret));
}

/** A model that repeats every secret: first beside a tool call (so the next request carries it), then as the answer. */
function echoingScript() {
  const echo = `keys: ${ALL.join(" ")}`;
  wire.server.enqueue(
    chatSse(
      {
        text: echo,
        toolCalls: [{ id: "call_1", name: "calculator", arguments: '{"expression":"1 + 1"}' }],
        usage: { prompt_tokens: 10, completion_tokens: 5 },
      },
      0,
    ),
    chatSse({ text: `the answer, ${echo}`, usage: { prompt_tokens: 20, completion_tokens: 5 } }, 1),
  );
}

describe("one scrubber for every output channel", () => {
  it("a key the server echoes into the answer leaks nowhere: human output, trace, store", async () => {
    echoingScript();
    const cwd = tempCwd();
    const run = await runCli(["run", "--trace", "t.jsonl", "--tools", "calculator", "go"], {
      cwd,
      env: wire.env(NAMED),
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("the answer, keys: [REDACTED]");
    expect(existsSync(join(cwd, ".glassloop/glassloop.db"))).toBe(true);
    expect(leaked(leftBehind(cwd, run.stdout + run.stderr), ALL)).toEqual([]);
  });

  it("run --json and --show-prompt scrub by the same rule as human output", async () => {
    echoingScript();
    const cwd = tempCwd();
    const run = await runCli(
      ["run", "--json", "--show-prompt", "--trace", "t.jsonl", "--tools", "calculator", "go"],
      { cwd, env: wire.env(NAMED) },
    );
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ status: "ok", output: expect.stringContaining("[REDACTED]") });
    // The second request carried the echo back to the server; --show-prompt shows it scrubbed.
    expect(wire.server.requests[1]?.raw).toContain(NAMED.GITHUB_PAT);
    expect(run.stderr).toContain("── request 2");
    expect(leaked(leftBehind(cwd, run.stdout + run.stderr), ALL)).toEqual([]);
  });

  it("a key split across two streamed deltas is still scrubbed on the terminal", async () => {
    const delta = (content: string) => ({ choices: [{ index: 0, delta: { content } }] });
    const cut = 12;
    wire.server.enqueue({
      sse: sseData([
        delta("the key is "),
        delta(KEY.slice(0, cut)),
        delta(`${KEY.slice(cut)} and ${NAMED.GITHUB_PAT.slice(0, 4)}`),
        delta(`${NAMED.GITHUB_PAT.slice(4)}.`),
        { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
      ]),
    });
    const run = await runCli(["run", "--no-trace", "go"], { cwd: tempCwd(), env: wire.env(NAMED) });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("the key is [REDACTED] and [REDACTED].\n");
  });

  it("a failing run's --json error and stored error are scrubbed too", async () => {
    wire.server.enqueue({
      status: 400,
      json: { error: { message: `bad request from ${NAMED.SERVICE_KEY} using ${NAMED.DB_PASSWORD}` } },
    });
    const cwd = tempCwd();
    const run = await runCli(["run", "--json", "--trace", "t.jsonl", "go"], { cwd, env: wire.env(NAMED) });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: "failed",
      error: { message: expect.stringContaining("[REDACTED]") },
    });
    expect(leaked(leftBehind(cwd, run.stdout + run.stderr), ALL)).toEqual([]);
  });
});

describe("secrets in a base URL", () => {
  const USER_PASS = "pw-basic-s3cret";
  const QUERY_KEY = "qk-url-secret-42";

  it.each([
    ["userinfo and ?api-key=", (host: string) => `http://alice:${USER_PASS}@${host}/v1?api-key=${QUERY_KEY}`],
    ["?key=", (host: string) => `http://${host}/v1?key=${QUERY_KEY}`],
  ])("%s: sent to the server, shown nowhere (show-prompt, trace, errors, store)", async (_, baseUrl) => {
    const host = new URL(wire.server.url).host;
    const base = baseUrl(host);
    // The server quotes the URL it was called on in an error (retried), then answers.
    wire.server.enqueue(
      { status: 500, json: { error: { message: `upstream failed for ${base}/chat/completions` } } },
      chatSse({ text: "fine", usage: { prompt_tokens: 3, completion_tokens: 1 } }),
    );
    const cwd = tempCwd();
    const env = cleanEnv({ GLASSLOOP_MODEL: "openai:gpt-4o-mini", OPENAI_BASE_URL: base });
    const run = await runCli(["run", "--show-prompt", "--trace", "t.jsonl", "go"], { cwd, env });
    expect(run.stderr).toContain("→ http://");
    expect(run.stdout).toBe("fine\n");
    expect(run.code).toBe(0);
    // The credentials did their job: the query went along and the userinfo became Basic auth.
    const request = wire.server.requests[1];
    expect(request?.path).toMatch(new RegExp(`^/v1/chat/completions\\?(api-)?key=${QUERY_KEY}$`));
    if (base.includes("@")) {
      expect(request?.headers.authorization).toBe(
        `Basic ${Buffer.from(`alice:${USER_PASS}`).toString("base64")}`,
      );
    }
    expect(leaked(leftBehind(cwd, run.stdout + run.stderr), [USER_PASS, QUERY_KEY])).toEqual([]);

    // A run that fails on the quoting error: its message in --json and in the store is clean.
    wire.server.enqueue({ status: 400, json: { error: { message: `bad call to ${base}` } } });
    const failed = await runCli(["run", "--json", "--trace", "t.jsonl", "go"], { cwd, env });
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout).error.message).toContain("[REDACTED]");
    expect(leaked(leftBehind(cwd, failed.stdout + failed.stderr), [USER_PASS, QUERY_KEY])).toEqual([]);
  });
});
