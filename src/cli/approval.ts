import type { Interface } from "node:readline";
import type { ApprovalHandler, PendingApproval } from "../features/approval/approval.js";
import type { Store } from "../store/store.js";
import { type CliIO, UsageError } from "./command.js";
import type { Printer } from "./printer.js";
import { terminalInterface } from "./terminal-text.js";
import { visible } from "./visible.js";

/** Something that can ask the user a question and read the answer line (a readline interface). */
export interface Asker {
  question(query: string, options: { signal?: AbortSignal }, callback: (answer: string) => void): void;
}

/**
 * The run option `onApproval` for a terminal: shows the tool and its arguments as validated (what
 * will run), control characters made visible, and asks y/n; only an explicit yes approves. Questions are asked one at a time even
 * when the model requested several calls at once, and a run stopped meanwhile (Ctrl-C) withdraws
 * its question, so the next line typed is not taken as an answer.
 */
export function terminalApprover(
  printer: Printer,
  asker: Asker,
  hooks: { before?: () => void } = {},
): ApprovalHandler {
  let queue: Promise<unknown> = Promise.resolve();
  return (call, signal) => {
    const answer = queue.then(async () => {
      if (signal.aborted) throw signal.reason;
      hooks.before?.();
      printer.note(
        `${printer.err.yellow("?")} ${printer.err.bold(visible(call.toolName))} wants to run with these arguments:`,
      );
      printer.note(`    ${visible(call.arguments)}`);
      const reply = await new Promise<string>((resolve, reject) => {
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        asker.question("  Allow? [y/N] ", { signal }, resolve);
      });
      const yes = /^\s*y(es)?\s*$/i.test(reply);
      printer.note(yes ? printer.err.green("  approved") : printer.err.red("  not approved"));
      return yes;
    });
    queue = answer.catch(() => undefined);
    return answer;
  };
}

/** For a run nobody can answer for: every call that needs approval is refused, and the user told. */
export function refusingApprover(printer: Printer): ApprovalHandler {
  return (call: PendingApproval) => {
    printer.note(
      printer.err.yellow(
        `! ${visible(call.toolName)} needs approval, but there is no terminal to ask: refused.`,
      ),
    );
    return false;
  };
}

/**
 * Questions on the terminal through a readline interface created only when the first question
 * comes (so until then Ctrl-C stays a plain signal). Once it exists it owns the terminal, and
 * Ctrl-C reaches `onInterrupt` through it.
 */
export function lazyTerminal(io: CliIO, onInterrupt: () => void): { asker: Asker; close: () => void } {
  let rl: Interface | undefined;
  return {
    asker: {
      question(query, options, callback) {
        if (!rl) {
          rl = terminalInterface(
            { input: io.stdin, output: io.stderr, terminal: io.stdin.isTTY === true },
            io.env,
          );
          rl.on("SIGINT", onInterrupt);
        }
        rl.question(query, options, callback);
      },
    },
    close: () => rl?.close(),
  };
}

/**
 * A run paused for approval resumes only once every waiting call is decided: each is asked here,
 * validated arguments shown, before `resume`. A `y` covers that one call of the paused turn only.
 */
export async function decideWaitingCalls(
  store: Store,
  runId: string,
  onApproval: ApprovalHandler | undefined,
  signal: AbortSignal,
): Promise<{ approve?: string[]; reject?: string[] }> {
  const stored = await store.loadRun(runId);
  if (stored.status !== "awaiting_approval") return {};
  const waiting = stored.progress.pending.filter((p) => p.state === "awaiting_approval");
  if (!onApproval) {
    throw new UsageError(
      `run ${runId} waits for approval of ${waiting.map((p) => visible(p.call.name)).join(", ")}: resume it on a terminal to decide`,
    );
  }
  const approve: string[] = [];
  const reject: string[] = [];
  for (const { call, validated } of waiting) {
    // The arguments as validated when the run paused: the decision binds to exactly these.
    const yes = await onApproval(
      { toolCallId: call.id, toolName: call.name, arguments: validated ?? call.arguments },
      signal,
    );
    (yes ? approve : reject).push(call.id);
  }
  return { approve, reject };
}
