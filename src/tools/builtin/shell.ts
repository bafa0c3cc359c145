import { spawn } from "node:child_process";
import { z } from "zod";
import { ToolError } from "../../core/errors.js";
import { isSecretEnvName } from "../../core/redact.js";
import { type Tool, tool } from "../tool.js";

export { isSecretEnvName };

/** Options of the `shell` tool. */
export interface ShellOptions {
  /** Where commands run. */
  cwd: string;
  /** Per-command time limit (default 30,000 ms); the process group is killed after it. */
  timeoutMs?: number;
  /** Characters kept of stdout and of stderr each (default 10,000). */
  maxOutputChars?: number;
  /**
   * The environment commands see. Default: only the allow-listed variables of this process
   * (`SHELL_ENV_ALLOWED`: PATH, HOME, LANG, LC_*, TERM, TZ, USER, SHELL, TMPDIR) plus `passEnv`.
   */
  env?: NodeJS.ProcessEnv;
  /** Further variable names passed through from this process's environment (ignored with `env`). */
  passEnv?: readonly string[];
}

/** What `shell` returns to the model. */
export interface ShellResult {
  exitCode: number | null;
  signal?: string;
  stdout: string;
  stderr: string;
}

const input = z.object({ command: z.string().min(1).describe("A command line for /bin/sh, e.g. ls -la") });

/**
 * The variables a command sees by default. An allow-list, not a deny-list: no naming rule can
 * tell `PGPASSWORD`, `DATABASE_URL=postgres://u:pw@db` or `SESSION_COOKIE` from harmless names
 * for certain, so nothing passes that was not named.
 */
export const SHELL_ENV_ALLOWED: readonly string[] = [
  "PATH",
  "HOME",
  "LANG",
  "LC_*",
  "TERM",
  "TZ",
  "USER",
  "SHELL",
  "TMPDIR",
];

/**
 * The `shell` tool: runs a command with /bin/sh. Dangerous by nature, so it is never on by default
 * and every call needs a human's approval (`needsApproval`); its environment is an allow-list
 * (`allowedEnv`) so an approved command does not print the process's secrets to the model.
 */
export function shellTool(options: ShellOptions): Tool<z.output<typeof input>, unknown, ShellResult> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxChars = options.maxOutputChars ?? 10_000;
  const env = options.env ?? allowedEnv(process.env, options.passEnv);
  return tool({
    name: "shell",
    description: "Runs a shell command (/bin/sh -c) in the working directory after the user approves it.",
    input,
    // Every command: a person sees the exact command line before anything runs.
    needsApproval: true,
    timeoutMs: timeoutMs + 2_000,
    run: ({ command }, { signal }) =>
      new Promise<ShellResult>((resolve, reject) => {
        const child = spawn("/bin/sh", ["-c", command], {
          cwd: options.cwd,
          env,
          stdio: ["ignore", "pipe", "pipe"],
          detached: true,
        });
        const out = collector(maxChars);
        const err = collector(maxChars);
        child.stdout.on("data", out.add);
        child.stderr.on("data", err.add);
        let timedOut = false;
        const kill = () => {
          try {
            if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
          } catch {
            // Already gone.
          }
        };
        const timer = setTimeout(() => {
          timedOut = true;
          kill();
        }, timeoutMs);
        signal.addEventListener("abort", kill, { once: true });
        child.on("error", (error) => {
          clearTimeout(timer);
          reject(new ToolError(`Cannot start the shell: ${error.message}`));
        });
        child.on("close", (code, sig) => {
          clearTimeout(timer);
          signal.removeEventListener("abort", kill);
          if (timedOut) {
            reject(new ToolError(`The command timed out after ${timeoutMs} ms and was killed`));
            return;
          }
          resolve({
            exitCode: code,
            ...(sig && { signal: sig }),
            stdout: out.text(),
            stderr: err.text(),
          });
        });
      }),
  });
}

/**
 * The part of `env` a shell command may see: `SHELL_ENV_ALLOWED` plus `extra` (exact names, or a
 * prefix ending in `*`). A command can still read its parent's environment through
 * `/proc/<ppid>/environ`; approval of each command is the real guard, this only keeps secrets
 * out of what an approved command prints by accident.
 */
export function allowedEnv(env: NodeJS.ProcessEnv, extra: readonly string[] = []): NodeJS.ProcessEnv {
  const names = [...SHELL_ENV_ALLOWED, ...extra];
  const allowed = (name: string) =>
    names.some((n) => (n.endsWith("*") ? name.startsWith(n.slice(0, -1)) : name === n));
  return Object.fromEntries(Object.entries(env).filter(([name]) => allowed(name)));
}

/** `env` without variables whose names say they hold a secret (a deny-list; the default is `allowedEnv`). */
export function withoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isSecretEnvName(name)));
}

function collector(max: number) {
  let text = "";
  let dropped = 0;
  return {
    add: (chunk: Buffer) => {
      const piece = chunk.toString("utf8");
      const room = max - text.length;
      if (room > 0) text += piece.slice(0, room);
      dropped += Math.max(0, piece.length - Math.max(room, 0));
    },
    text: () => (dropped > 0 ? `${text}\n[truncated: ${dropped} more characters]` : text),
  };
}
