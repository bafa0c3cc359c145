#!/usr/bin/env node
import { main } from "./cli.js";
import type { CliIO } from "./command.js";
import { terminalText } from "./terminal-text.js";

const io: CliIO = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
};
main(process.argv.slice(2), io).then(
  // Exit at once: idle keep-alive sockets or a closed REPL must not hold the process open.
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(terminalText(`glassloop: ${String(error)}\n`, process.env));
    process.exit(1);
  },
);
