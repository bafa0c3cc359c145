import { createInterface, type Interface } from "node:readline";
import type { CliIO } from "./command.js";
import type { Printer } from "./printer.js";

/** Asks the user whether one tool call may run; resolves true only for an explicit yes. */
export type Approver = (request: {
  toolName: string;
  args: unknown;
  signal?: AbortSignal;
}) => Promise<boolean>;

/** Something that can ask the user a question and read the answer line (a readline interface). */
export interface Asker {
  question(query: string, options: { signal?: AbortSignal }, callback: (answer: string) => void): void;
}

/**
 * An approver that shows the exact arguments and asks y/n on the terminal. Questions are asked one
 * at a time even when the model requested several calls at once. Without a terminal nothing is
 * approved: there is no one to ask.
 */
export function terminalApprover(
  printer: Printer,
  asker: () => Asker | undefined,
  hooks: { before?: () => void } = {},
): Approver {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const answer = queue.then(async () => {
      const rl = asker();
      if (!rl) {
        printer.note(
          printer.err.yellow(
            `! ${request.toolName} needs approval, but there is no terminal to ask: refused.`,
          ),
        );
        return false;
      }
      hooks.before?.();
      const args = JSON.stringify(request.args, null, 2).replace(/\n/g, "\n    ");
      printer.note(
        `${printer.err.yellow("?")} ${printer.err.bold(request.toolName)} wants to run with:\n    ${args}`,
      );
      // A run stopped meanwhile (Ctrl-C) withdraws the question, so the next line typed is not taken as an answer.
      const reply = await new Promise<string>((resolve, reject) => {
        const signal = request.signal;
        if (signal?.aborted) return reject(signal.reason);
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
        rl.question("  Allow? [y/N] ", signal ? { signal } : {}, resolve);
      });
      const yes = /^\s*y(es)?\s*$/i.test(reply);
      printer.note(yes ? printer.err.green("  approved") : printer.err.red("  not approved"));
      return yes;
    });
    queue = answer.catch(() => undefined);
    return answer;
  };
}

/** A readline interface on stdin when stdin is a terminal, created on first use. */
export function lazyTerminal(io: CliIO): { get: () => Interface | undefined; close: () => void } {
  let rl: Interface | undefined;
  return {
    get: () => {
      if (!io.stdin.isTTY) return undefined;
      rl ??= createInterface({ input: io.stdin, output: io.stderr, terminal: true });
      return rl;
    },
    close: () => rl?.close(),
  };
}
