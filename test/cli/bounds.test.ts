/**
 * `glassloop run` against a server that never finishes its stream: with `modelHttp.deadlineMs` in
 * `glassloop.config.json` the run ends by itself, in a typed error, instead of hanging.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, tempCwd, useWireServer } from "../helpers/cli.js";

const wire = useWireServer("sk-test-bounds-cli-0123456789");

function cwdWith(config: object): string {
  const cwd = tempCwd();
  writeFileSync(join(cwd, "glassloop.config.json"), JSON.stringify(config));
  return cwd;
}

describe("glassloop run never hangs on an endless stream", () => {
  it("keep-alive comments forever end at modelHttp.deadlineMs with exit 1 and code deadline_exceeded", async () => {
    wire.server.handler = () => ({
      headers: { "content-type": "text/event-stream" },
      drip: { piece: ": ping\n\n", everyMs: 20 },
    });
    const cwd = cwdWith({ modelHttp: { deadlineMs: 700 } });
    const started = performance.now();
    const run = await runCli(["run", "--json", "--no-trace", "hello"], {
      cwd,
      env: wire.env(),
      timeoutMs: 15_000,
    });
    expect(performance.now() - started).toBeLessThan(12_000);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "failed", error: { code: "deadline_exceeded" } });
    expect(wire.server.requests).toHaveLength(1);
  });

  it("a stream over modelHttp.maxStreamBytes ends in response_too_large", async () => {
    wire.server.handler = () => ({
      headers: { "content-type": "text/event-stream" },
      drip: { piece: `: ${"x".repeat(1024)}\n\n`, times: 100_000 },
    });
    const cwd = cwdWith({ modelHttp: { maxStreamBytes: 32_768 } });
    const run = await runCli(["run", "--no-trace", "hello"], { cwd, env: wire.env(), timeoutMs: 15_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/✗ run failed: .*stream was larger than 32768 bytes/);
  });

  it("a bad modelHttp value is a configuration error naming the key", async () => {
    const cwd = cwdWith({ modelHttp: { deadlineMs: -1 } });
    const run = await runCli(["run", "hello"], { cwd, env: wire.env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/modelHttp\.deadlineMs/);
    expect(wire.server.requests).toHaveLength(0);
  });
});
