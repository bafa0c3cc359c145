import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runTool } from "../../../test/helpers/run-tool.js";
import { BUILTIN_TOOLS, type BuiltinEntry } from "./index.js";
import { allowedEnv, isSecretEnvName, SHELL_ENV_ALLOWED, shellTool, withoutSecrets } from "./shell.js";

const dir = mkdtempSync(join(tmpdir(), "glassloop-shell-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("shell", () => {
  it("runs a command in its directory and reports exit code and output", async () => {
    const shell = shellTool({ cwd: dir, env: { PATH: process.env.PATH } });
    expect(await runTool(shell, { command: "pwd; echo oops >&2; exit 3" })).toEqual({
      exitCode: 3,
      stdout: `${dir}\n`,
      stderr: "oops\n",
    });
  });

  it("keeps API keys and tokens out of the command's environment", async () => {
    const env = withoutSecrets({
      PATH: process.env.PATH,
      OPENAI_API_KEY: "sk-secret",
      GITHUB_TOKEN: "t",
      LANG: "C",
    });
    expect(env).toEqual({ PATH: process.env.PATH, LANG: "C" });
    expect(["AWS_SECRET_ACCESS_KEY", "HF_TOKEN", "DB_PASSWORD", "SERVICE_KEY"].every(isSecretEnvName)).toBe(
      true,
    );
    expect(["GIT_AUTHOR_NAME", "XAUTHORITY", "KEYBOARD_LAYOUT", "PATH"].some(isSecretEnvName)).toBe(false);
    const shell = shellTool({ cwd: dir, env });
    const result = await runTool(shell, { command: "env" });
    expect(result.stdout).not.toContain("sk-secret");
  });

  it("kills a command that runs too long, and one whose run is aborted", async () => {
    const slow = shellTool({ cwd: dir, timeoutMs: 200 });
    await expect(runTool(slow, { command: "sleep 5" })).rejects.toThrow(/timed out after 200 ms/);
    const controller = new AbortController();
    const pending = runTool(shellTool({ cwd: dir }), { command: "sleep 5" }, controller.signal);
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    expect(await pending).toMatchObject({ exitCode: null, signal: "SIGKILL" });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("cuts long output", async () => {
    const shell = shellTool({ cwd: dir, maxOutputChars: 10 });
    const result = await runTool(shell, { command: "printf '%0100d' 0" });
    expect(result.stdout).toBe(`${"0".repeat(10)}\n[truncated: 90 more characters]`);
  });

  it("needs approval for every call, and the catalog lists exactly the tools that need it", () => {
    expect(shellTool({ cwd: dir }).needsApproval).toBe(true);
    for (const [name, entry] of Object.entries(BUILTIN_TOOLS) as [string, BuiltinEntry][]) {
      const gated = entry
        .create({ root: dir })
        .filter((t) => t.needsApproval)
        .map((t) => t.name);
      expect(gated, name).toEqual(entry.needsApproval);
    }
  });

  it("by default a command sees only allow-listed variables: no PGPASSWORD, DB_PASS, GITHUB_PAT, DATABASE_URL, SESSION_COOKIE", async () => {
    // Names a deny-list lets through; the attack is a command that prints its environment.
    const planted = {
      PGPASSWORD: "pg-planted-1",
      DB_PASS: "db-planted-2",
      GITHUB_PAT: "pat-planted-3",
      DATABASE_URL: "postgres://app:url-planted-4@db.internal/app",
      SESSION_COOKIE: "cookie-planted-5",
      MY_SERVICE_CONFIG: "config-planted-6",
      LC_ALL: "C",
      TZ: "UTC",
    };
    const saved = { ...process.env };
    Object.assign(process.env, planted);
    try {
      const shell = shellTool({ cwd: dir });
      const { stdout } = await runTool(shell, { command: "env" });
      for (const value of Object.values(planted).filter((v) => v.includes("planted")))
        expect(stdout).not.toContain(value);
      expect(stdout).toContain("LC_ALL=C");
      expect(stdout).toContain("TZ=UTC");
      expect(stdout).toContain(`PATH=${process.env.PATH}`);
      // A variable the user names is passed through, and only that one.
      const named = shellTool({ cwd: dir, passEnv: ["MY_SERVICE_CONFIG"] });
      const more = (await runTool(named, { command: "env" })).stdout;
      expect(more).toContain("MY_SERVICE_CONFIG=config-planted-6");
      expect(more).not.toContain("pg-planted-1");
    } finally {
      for (const name of Object.keys(planted)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });

  it("the allow-list is exactly the documented names, LC_* as a prefix", () => {
    expect(SHELL_ENV_ALLOWED).toEqual([
      "PATH",
      "HOME",
      "LANG",
      "LC_*",
      "TERM",
      "TZ",
      "USER",
      "SHELL",
      "TMPDIR",
    ]);
    expect(
      allowedEnv({ LC_CTYPE: "C", LCX: "no", TERM: "xterm", TERMINAL_TOKEN: "no", EXTRA_ONE: "1" }, [
        "EXTRA_*",
      ]),
    ).toEqual({ LC_CTYPE: "C", TERM: "xterm", EXTRA_ONE: "1" });
  });
});
