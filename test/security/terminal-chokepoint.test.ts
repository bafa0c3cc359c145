/**
 * The terminal chokepoint (docs/security.md): every byte the CLI prints passes terminal-text.ts.
 * The scan keeps the command sources off the raw streams; the fake command shows that a command
 * added tomorrow, with no escaping or scrubbing of its own, is escaped and scrubbed anyway.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/cli.js";
import type { CliIO, Command } from "../../src/cli/command.js";
import { COMMANDS } from "../../src/cli/commands.js";
import { Printer } from "../../src/cli/printer.js";

const SRC = join(import.meta.dirname, "../../src");
const ESC = "\u001b";
// C0 but newline and tab, DEL, C1: what must never reach a terminal raw.
const CONTROL = /(?![\n\t])\p{Cc}/u;
const KEY = "sk-test-chokepoint-0123456789abcdef";
const HOSTILE = `${ESC}]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007${ESC}]0;title\u0007${ESC}[2J\u009b2J\r`;

/** Every source file of the CLI's commands: src/cli and each room's `cli.ts` (trace, evals). */
function cliSources(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name)) files.push(path);
    }
  };
  walk(SRC);
  return files
    .map((file) => relative(SRC, file))
    .filter((file) => file.startsWith("cli/") || /(^|\/)cli\.ts$/.test(file) || file === "evals/progress.ts");
}

describe("the terminal printer is the only way to a stream", () => {
  it("no command source writes to process.stdout/stderr, console, a readline or an escape of its own", () => {
    const sources = cliSources();
    expect(sources).toContain("cli/commands/run.ts");
    expect(sources).toContain("evals/cli.ts");
    expect(sources).toContain("trace/cli.ts");
    const offenders: string[] = [];
    for (const file of sources) {
      const text = readFileSync(join(SRC, file), "utf8");
      const rules: [RegExp, string, string[]][] = [
        // main.ts hands the process's streams to main(), which wraps them before any command runs.
        [/process\.(stdout|stderr)/, "a raw process stream", ["cli/main.ts"]],
        [/console\.(log|error|warn|info|debug)/, "console", []],
        [/createInterface\(/, "a readline on a raw stream", ["cli/terminal-text.ts"]],
        [
          /\\u001b|\\x1b|\\e\[|fromCharCode\(27\)|\\u009b/,
          "an escape sequence",
          ["cli/terminal-text.ts", "cli/visible.ts"],
        ],
      ];
      for (const [pattern, what, allowed] of rules)
        if (pattern.test(text) && !allowed.includes(file)) offenders.push(`${file}: ${what}`);
    }
    expect(offenders).toEqual([]);
  });
});

describe("a new command inherits the printer without code of its own", () => {
  afterEach(() => {
    delete COMMANDS["fake-hostile"];
  });

  function fakeIo(isTTY: boolean): { io: CliIO; out: () => string; err: () => string } {
    const stdout = Object.assign(new PassThrough(), { isTTY });
    const stderr = Object.assign(new PassThrough(), { isTTY });
    let out = "";
    let err = "";
    stdout.on("data", (d: Buffer) => {
      out += d.toString("utf8");
    });
    stderr.on("data", (d: Buffer) => {
      err += d.toString("utf8");
    });
    const io: CliIO = {
      stdout,
      stderr,
      stdin: Object.assign(new PassThrough(), { isTTY: false }),
      env: { OPENAI_API_KEY: KEY, TERM: "xterm" },
      cwd: process.cwd(),
    };
    return { io, out: () => out, err: () => err };
  }

  it("its raw writes, its Printer's lines, its styled text and its error are escaped and scrubbed", async () => {
    // A command that trusts everything it prints: a server's text, the key, and an error quoting both.
    const fake: Command = {
      usage: "glassloop fake-hostile",
      async run(_args, io) {
        io.stdout.write(`answer ${HOSTILE} ${KEY}\n`);
        io.stderr.write(Buffer.from(`note ${HOSTILE}\n`));
        const printer = new Printer(io);
        printer.line(printer.out.green(`styled ${HOSTILE}`));
        throw new Error(`failed: ${HOSTILE} ${KEY}`);
      },
    };
    COMMANDS["fake-hostile"] = { summary: "a test's hostile command", load: async () => ({ default: fake }) };
    const { io, out, err } = fakeIo(true);
    expect(await main(["fake-hostile"], io)).toBe(1);
    const printed = out() + err();
    expect(printed).not.toContain(KEY);
    expect(printed).toContain("answer \\u001b]52;c;");
    expect(printed).toContain("note \\u001b]52;c;");
    expect(printed).toContain("failed: \\u001b]52;c;");
    // The only escapes left are the Printer's own color, around escaped hostile text.
    const withoutOwn = printed.replace(new RegExp(`${ESC}\\[(32|39)m`, "g"), "");
    expect(withoutOwn).not.toMatch(CONTROL);
    expect(out()).toContain(`${ESC}[32mstyled \\u001b]52;c;`);
  });

  it("its --json output stays valid JSON with the same values, C1 and bidi controls escaped", async () => {
    const value = { text: `a\u0085b\u202ec ${ESC}]0;t\u0007` };
    const fake: Command = {
      usage: "glassloop fake-hostile",
      async run(_args, io) {
        io.stdout.write(`${JSON.stringify(value)}\n`);
        return 0;
      },
    };
    COMMANDS["fake-hostile"] = { summary: "a test's hostile command", load: async () => ({ default: fake }) };
    const { io, out } = fakeIo(false);
    expect(await main(["fake-hostile"], io)).toBe(0);
    expect(out()).not.toMatch(/[\u0085\u202e]/);
    expect(JSON.parse(out())).toEqual(value);
  });
});
