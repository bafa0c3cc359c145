import { spawn } from "node:child_process";
import { z } from "zod";
import { ToolError } from "../../errors.js";
import { type Tool, tool } from "../tool.js";

/** Options of the `shell` tool. */
export interface ShellOptions {
  /** Where commands run. */
  cwd: string;
  /** Per-command time limit (default 30,000 ms); the process group is killed after it. */
  timeoutMs?: number;
  /** Characters kept of stdout and of stderr each (default 10,000). */
  maxOutputChars?: number;
  /** The environment commands see (default: this process's, without keys, tokens and passwords). */
  env?: NodeJS.ProcessEnv;
}

/** What `shell` returns to the model. */
export interface ShellResult {
  exitCode: number | null;
  signal?: string;
  stdout: string;
  stderr: string;
}

const input = z.object({ command: z.string().min(1).describe("A command line for /bin/sh, e.g. ls -la") });
/** Whole `_`-separated parts of a name that say it holds a secret (GIT_AUTHOR_NAME does not). */
const SECRET_NAME =
  /(?:^|_)(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|ACCESS_KEY|AUTH|CREDENTIALS?)(?:$|_)/i;

/** Whether an environment variable's name says it holds a secret: `OPENAI_API_KEY`, `GITHUB_TOKEN`, ... */
export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * The `shell` tool: runs a command with /bin/sh. Dangerous by nature, so it is never on by default
 * and every call needs a human's approval (`needsApproval`); secrets are kept out of its
 * environment so a command cannot print them to the model.
 */
export function shellTool(options: ShellOptions): Tool<z.output<typeof input>, unknown, ShellResult> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxChars = options.maxOutputChars ?? 10_000;
  const env = options.env ?? withoutSecrets(process.env);
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

/** `env` without variables whose names say they hold a secret. */
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
