import { PassThrough } from "node:stream";
import type { CliIO } from "../../src/cli/command.js";

/** A CliIO whose output is captured as text. */
export function captureIO(
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): CliIO & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  stderr.on("data", (c: Buffer) => {
    err += c.toString();
  });
  return { stdout, stderr, stdin: new PassThrough(), env, cwd, out: () => out, err: () => err };
}
