#!/usr/bin/env node
import { main } from "./cli.js";
import type { CliIO } from "./command.js";
import { scrubSecrets } from "./failure.js";

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
    process.stderr.write(`glassloop: ${scrubSecrets(String(error), process.env)}\n`);
    process.exit(1);
  },
);
