/**
 * Drives a program through a real pseudo-terminal with `script` from util-linux (present on Debian
 * and most Linux systems; no native module needed). Bytes written go to the terminal as typed keys
 * (Enter is "\r", Ctrl-C is "\x03", Ctrl-D is "\x04"), so line editing, raw mode and Ctrl-C behave
 * as they do for a person at a terminal.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

/** A program running on a pseudo-terminal. */
export interface PtyProcess {
  /** Everything the terminal showed so far, ANSI escapes removed. */
  readonly output: string;
  /** The same, escapes included. */
  readonly raw: string;
  /** Types `text`. */
  write(text: string): void;
  /** Resolves with the output once `pattern` appears in the output after `from` (default: anywhere). */
  waitFor(pattern: RegExp | string, options?: { from?: number; timeoutMs?: number }): Promise<string>;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  kill(): void;
}

const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]|${ESC}[=>]|\\r`, "g");

/** Starts `argv` on a pseudo-terminal (80 columns) in `cwd` with `env`. */
export function spawnPty(argv: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): PtyProcess {
  const command = argv.map(quote).join(" ");
  const child: ChildProcessWithoutNullStreams = spawn(
    "script",
    ["-q", "-f", "-e", "-c", `stty cols 80 2>/dev/null; exec ${command}`, "/dev/null"],
    {
      cwd: options.cwd,
      env: options.env,
      stdio: "pipe",
    },
  );
  let raw = "";
  child.stdout.on("data", (chunk: Buffer) => {
    raw += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    raw += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const clean = () => raw.replace(ANSI, "");
  return {
    get output() {
      return clean();
    },
    get raw() {
      return raw;
    },
    write: (text) => {
      child.stdin.write(text);
    },
    waitFor: (pattern, { from = 0, timeoutMs = 15_000 } = {}) =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const check = () => {
          const text = clean().slice(from);
          const found = typeof pattern === "string" ? text.includes(pattern) : pattern.test(text);
          if (found) return resolve(clean());
          if (Date.now() - started > timeoutMs) {
            return reject(
              new Error(
                `timed out waiting for ${String(pattern)}; the terminal shows:\n${clean().slice(from)}`,
              ),
            );
          }
          setTimeout(check, 25);
        };
        check();
      }),
    exited,
    kill: () => {
      child.kill("SIGKILL");
    },
  };
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, "'\\''")}'`;
}
