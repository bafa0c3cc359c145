import type { Interface } from "node:readline";
import { parseArgs } from "node:util";
import { RunError } from "../../core/errors.js";
import type { AgentEvent } from "../../core/vocabulary/events.js";
import type { RunUsage } from "../../core/vocabulary/usage.js";
import type { ApprovalHandler } from "../../features/approval/approval.js";
import { emptyUsage } from "../../loop/usage.js";
import { UnknownSessionError } from "../../store/errors.js";
import type { Store } from "../../store/store.js";
import { BUILTIN_TOOLS, type BuiltinName } from "../../tools/builtin/index.js";
import { refusingApprover, terminalApprover } from "../approval.js";
import { type CliIO, type Command, EXIT, UsageError } from "../command.js";
import { formatError } from "../failure.js";
import { promptCommand, terminalElicitation } from "../mcp-servers.js";
import { Printer } from "../printer.js";
import { formatUsage, RunRenderer } from "../render.js";
import { AGENT_OPTIONS, type Prepared, prepareAgent } from "../setup.js";
import { terminalInterface } from "../terminal-text.js";
import { visible } from "../visible.js";
import { describeReplay } from "./run.js";

const USAGE = `Usage: glassloop chat [options]

Talks with an agent, one question after another. The conversation is kept in a session (default
"chat") in .glassloop/glassloop.db (or GLASSLOOP_DB), so it survives a restart.

In the chat:
  /reset     forget the conversation (the session starts empty)
  /tools     the tools the agent has
  /cost      tokens and cost of this chat so far
  /session   the session's id, size and where it is kept
  /prompt    the MCP servers' prompts; /prompt <server> <prompt> name=value sends one
  /exit      leave (Ctrl-D too)
  Ctrl-C     cancels the answer in progress; the session stays

Options:
  -m, --model provider:model   the model (same defaults as "glassloop run")
  -t, --tools a,b              built-in tools: calculator, clock, http_get, files, shell
      --session id             the conversation to continue (default "chat")
      --max-steps n, --max-cost usd, --instructions text, --root dir, --trace file.jsonl|dir
      --show-prompt            print each exact request body as it is sent (stderr)
  -y, --yes                    with no model configured, download a small local model without
                               asking (on a terminal glassloop asks first)`;

const OPTIONS = {
  ...AGENT_OPTIONS,
  session: { type: "string" },
  "show-prompt": { type: "boolean" },
} as const;

/** `glassloop chat`: talk with an agent on a session that survives restarts. */
const chat: Command = {
  usage: USAGE,
  async run(args, io) {
    let values: ReturnType<typeof parse>["values"];
    try {
      ({ values } = parse(args));
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const printer = new Printer(io);
    const interactive = io.stdin.isTTY === true;
    const rl = terminalInterface(
      { input: io.stdin, output: io.stdout, terminal: interactive, historySize: 200 },
      io.env,
    );
    const renderer = new RunRenderer(printer, { showPrompt: values["show-prompt"] === true, quiet: false });
    const approver = interactive
      ? terminalApprover(printer, rl, { before: () => renderer.pause() })
      : refusingApprover(printer);
    let prepared: Prepared;
    try {
      prepared = await prepareAgent(values, io, {
        store: true,
        mcp: {
          ...(interactive && {
            onElicitation: terminalElicitation(printer, rl, { before: () => renderer.pause() }),
          }),
          warn: (message) => printer.note(printer.err.yellow(`! ${message}`)),
        },
      });
    } catch (error) {
      rl.close();
      throw error;
    }
    try {
      return await repl(new Session(prepared, values.session ?? "chat", io, printer, rl, renderer, approver));
    } finally {
      await prepared.agent.close();
      rl.close();
    }
  },
};
export default chat;

function parse(args: string[]) {
  return parseArgs({ args, options: OPTIONS, allowPositionals: false, strict: true });
}

/** The state of one chat: the agent, its session, the answer in progress and the running totals. */
class Session {
  readonly store: Store;
  current: AbortController | undefined;
  totals: RunUsage[] = [];

  constructor(
    readonly prepared: Prepared,
    readonly id: string,
    readonly io: CliIO,
    readonly printer: Printer,
    readonly rl: Interface,
    readonly renderer: RunRenderer,
    readonly approver: ApprovalHandler,
  ) {
    this.store = prepared.store as Store;
  }

  async messageCount(): Promise<number> {
    try {
      return (await this.store.readSession(this.id)).length;
    } catch (error) {
      if (error instanceof UnknownSessionError) return 0;
      throw error;
    }
  }
}

async function repl(chat: Session): Promise<number> {
  const { printer, rl, prepared } = chat;
  const e = printer.err;
  const earlier = await chat.messageCount();
  if (prepared.traceProblem) printer.note(e.yellow(`! runs are not traced: ${prepared.traceProblem}`));
  printer.note(
    e.dim(
      `glassloop chat · model ${prepared.choice.model} (${prepared.choice.source})${describeReplay(prepared.choice.model)}`,
    ),
  );
  printer.note(
    e.dim(
      `session "${chat.id}" · ${earlier === 0 ? "new" : `${earlier} earlier ${earlier === 1 ? "message" : "messages"}`} · /help for commands, Ctrl-C cancels an answer`,
    ),
  );
  // Ctrl-C: in a terminal readline reports it; from a pipe the process gets the signal.
  const onInterrupt = () => {
    if (chat.current) {
      chat.current.abort(new Error("cancelled with Ctrl-C"));
      return;
    }
    printer.note(e.dim("(nothing to cancel; /exit or Ctrl-D leaves)"));
    rl.prompt();
  };
  rl.on("SIGINT", onInterrupt);
  process.on("SIGINT", onInterrupt);
  rl.setPrompt(printer.out.bold("you› "));
  rl.prompt();
  try {
    for await (const line of rl) {
      const text = line.trim();
      if (text === "") {
        rl.prompt();
        continue;
      }
      if (text.startsWith("/")) {
        if (await slashCommand(chat, text)) break;
      } else {
        await answer(chat, text);
      }
      rl.prompt();
    }
  } finally {
    process.off("SIGINT", onInterrupt);
  }
  return EXIT.ok;
}

async function answer(chat: Session, text: string): Promise<void> {
  const { printer, prepared, renderer } = chat;
  const controller = new AbortController();
  chat.current = controller;
  const onEvent = (event: AgentEvent) => {
    prepared.tracer?.onEvent(event);
    renderer.onEvent(event);
  };
  try {
    const stream = prepared.agent.stream(text, {
      session: chat.id,
      signal: controller.signal,
      onEvent,
      onApproval: chat.approver,
    });
    for await (const _ of stream);
    const result = await stream.result;
    renderer.close();
    if (result.finishedBy !== "text")
      printer.line(
        visible(typeof result.output === "string" ? result.output : JSON.stringify(result.output), "text"),
      );
    printer.endLine();
    chat.totals.push(result.usage);
    printer.note(printer.err.dim(formatUsage(result.usage)));
  } catch (error) {
    renderer.close();
    printer.endLine();
    if (!(error instanceof RunError)) {
      printer.note(printer.err.red(`✗ ${formatError(error, chat.io.env)}`));
      return;
    }
    chat.totals.push(error.usage);
    if (error.code === "aborted") printer.note(printer.err.yellow("(cancelled; the conversation goes on)"));
    else printer.note(printer.err.red(`✗ ${formatError(error, chat.io.env)}`));
  } finally {
    chat.current = undefined;
    // A trace write that failed during the answer is said once, right after it.
    for (const failure of prepared.traceFailures.splice(0))
      printer.note(printer.err.yellow(`! trace not written: ${failure}`));
  }
}

/** Handles a /command; true means leave the chat. */
async function slashCommand(chat: Session, text: string): Promise<boolean> {
  const { printer } = chat;
  const e = printer.err;
  const [name] = text.split(/\s+/);
  switch (name) {
    case "/exit":
    case "/quit":
      return true;
    case "/reset":
      await chat.store.deleteSession(chat.id);
      printer.note(`session "${chat.id}" cleared: the next message starts a new conversation`);
      return false;
    case "/tools": {
      const names = chat.prepared.toolNames as BuiltinName[];
      if (names.length === 0)
        printer.note("no tools (start with --tools calculator,clock,http_get,files,shell)");
      for (const n of names) printer.note(`  ${e.bold(n.padEnd(11))} ${BUILTIN_TOOLS[n].description}`);
      return false;
    }
    case "/cost":
      printer.note(chat.totals.length === 0 ? "nothing spent yet" : formatUsage(sum(chat.totals)));
      return false;
    case "/session":
      printer.note(
        `session "${chat.id}": ${countOf(await chat.messageCount(), "message")} in ${chat.store.location}`,
      );
      return false;
    case "/prompt": {
      const args = text.split(/\s+/).slice(1);
      const message = await promptCommand(chat.prepared.mcp?.sources ?? [], args, printer);
      if (message !== undefined) await answer(chat, message);
      return false;
    }
    case "/help":
      printer.note(
        "/reset  /tools  /cost  /session  /prompt  /exit   ·   Ctrl-C cancels the answer in progress",
      );
      return false;
    default:
      printer.note(e.yellow(`unknown command ${name}; /help lists them`));
      return false;
  }
}

/** The chat's usage so far: every turn's totals added up (cost only while every turn's is known). */
function sum(usages: RunUsage[]): RunUsage {
  const total = emptyUsage(usages.every((u) => u.costUsd !== undefined));
  for (const u of usages) {
    total.requests += u.requests;
    total.inputTokens += u.inputTokens;
    total.outputTokens += u.outputTokens;
    total.cachedInputTokens += u.cachedInputTokens;
    if (u.cacheWriteInputTokens)
      total.cacheWriteInputTokens = (total.cacheWriteInputTokens ?? 0) + u.cacheWriteInputTokens;
    if (u.reasoningTokens) total.reasoningTokens = (total.reasoningTokens ?? 0) + u.reasoningTokens;
    total.toolCalls += u.toolCalls;
    total.durationMs += u.durationMs;
    if (total.costUsd !== undefined) total.costUsd += u.costUsd ?? 0;
  }
  return total;
}

/** `1 message`, `2 messages`. */
function countOf(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
