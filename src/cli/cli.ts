import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../core/package-root.js";
import { type CliIO, EXIT, UsageError } from "./command.js";
import { COMMANDS } from "./commands.js";
import { exitCodeFor, formatError, redactorFor } from "./failure.js";
import { jsonError, wantsJson } from "./json-output.js";
import { terminalStream } from "./terminal-text.js";

const NAME_WIDTH = Math.max(...Object.keys(COMMANDS).map((name) => name.length)) + 2;
const HELP = `glassloop: an agent runtime you can see through.

Usage: glassloop <command> [options]

Commands:
${Object.entries(COMMANDS)
  // Padded to the longest name plus two spaces, so no command runs into its summary.
  .map(([name, entry]) => `  ${name.padEnd(NAME_WIDTH)}${entry.summary}`)
  .join("\n")}

Run "glassloop <command> --help" for a command's options.
Model selection: --model, then GLASSLOOP_MODEL or glassloop.config.json, then a provider key in the
environment, then a running Ollama, then the embedded local model.`;

/**
 * Runs the CLI with `argv` (the arguments after the program name); resolves to the exit code.
 * Every command writes to `io`'s streams through `terminalStream`: the one printer (terminal-text.ts).
 */
export async function main(argv: string[], given: CliIO): Promise<number> {
  const io: CliIO = {
    ...given,
    stdout: terminalStream(given.stdout, given.env),
    stderr: terminalStream(given.stderr, given.env),
  };
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    const topic = name === "help" ? rest[0] : undefined;
    if (topic === undefined) {
      io.stdout.write(`${HELP}\n`);
      return name === undefined ? EXIT.usage : EXIT.ok;
    }
    return main([topic, "--help"], io);
  }
  if (name === "--version" || name === "-v") {
    io.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  const entry = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!entry) {
    io.stderr.write(`glassloop: unknown command "${name}". Commands: ${Object.keys(COMMANDS).join(", ")}.\n`);
    return EXIT.usage;
  }
  try {
    const command = (await entry.load()).default;
    if (rest.includes("--help") || rest.includes("-h")) {
      io.stdout.write(`${command.usage}\n`);
      return EXIT.ok;
    }
    return await command.run(rest, io);
  } catch (error) {
    // `--json` promises one JSON object on stdout for every outcome, bad usage included.
    if (wantsJson(rest)) {
      io.stdout.write(`${redactorFor(io.env).stringify(jsonError(error, io.env))}\n`);
      return exitCodeFor(error);
    }
    const hint = error instanceof UsageError ? `\nRun "glassloop ${name} --help" for usage.` : "";
    io.stderr.write(`glassloop ${name}: ${formatError(error, io.env)}${hint}\n`);
    return exitCodeFor(error);
  }
}

function version(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as {
    version: string;
  };
  return pkg.version;
}
