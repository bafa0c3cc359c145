import type { Command } from "./command.js";

/** An entry of the command table: a summary for `--help` and a lazy loader, so startup stays fast. */
export interface CommandEntry {
  summary: string;
  load: () => Promise<{ default: Command }>;
}

/**
 * Every `glassloop` subcommand. Adding one is one line here plus a module whose default export is
 * a `Command` (see docs/cli.md). Modules load only when their command runs.
 */
export const COMMANDS: Record<string, CommandEntry> = {
  run: { summary: "Run one task and stream the answer", load: () => import("./commands/run.js") },
  trace: { summary: "List, show, view and replay traces", load: () => import("../trace/cli.js") },
  chat: {
    summary: "Talk with an agent on a session that survives restarts",
    load: () => import("./commands/chat.js"),
  },
  demo: {
    summary: "Worked examples, offline, with replayed model answers (no key needed)",
    load: () => import("./commands/demo.js"),
  },
  models: {
    summary: "Which providers are set up and which model run would use",
    load: () => import("./commands/models.js"),
  },
  mcp: {
    summary: "Serve an agent as an MCP tool over stdio or streamable HTTP (mcp serve <module> [--http])",
    load: () => import("./commands/mcp.js"),
  },
  worker: {
    summary: "Run agents for a Postgres queue, failing over between workers",
    load: () => import("./commands/worker.js"),
  },
  serve: {
    summary: "Serve agents over HTTP: a chat page, useChat and AG-UI streams (serve <module>)",
    load: () => import("./commands/serve.js"),
  },
  enqueue: {
    summary: "Enqueue a run for the workers and follow it (--follow)",
    load: () => import("./commands/enqueue.js"),
  },
  eval: {
    summary: "Run, replay and compare an eval (a dataset, scorers, statistics)",
    load: () => import("../evals/cli.js"),
  },
};
