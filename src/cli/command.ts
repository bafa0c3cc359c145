import { GlassloopError } from "../core/errors.js";

/** What a command gets from the process: streams, environment and working directory. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** One `glassloop <name>` subcommand. */
export interface Command {
  /** Full help for `glassloop <name> --help`. */
  usage: string;
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  run(args: string[], io: CliIO): Promise<number>;
}

/**
 * Exit codes: 0 done, 1 the run failed (budget, loop, provider), 2 bad usage or configuration,
 * 130 stopped with Ctrl-C (128 + SIGINT, the shell's convention).
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/** Bad command-line usage (unknown option, missing task, bad number); exits 2 with a hint. */
export class UsageError extends GlassloopError {
  constructor(
    message: string,
    /** The command whose `--help` the hint names. */
    readonly command?: string,
  ) {
    super("usage", message);
  }
}
