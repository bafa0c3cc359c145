import type { Context } from "hono";
import type { Redactor } from "../core/redact.js";
import type { AgentTable } from "./agents.js";
import type { AttachmentRules } from "./attachments.js";
import type { Authenticator, Principal } from "./auth.js";
import type { ResolvedLimits } from "./limits.js";
import type { LogEntry } from "./log-items.js";
import type { RunHub } from "./run-hub.js";
import type { ServeLog } from "./serve-log.js";
import type { ServeRuns } from "./serve-runs.js";
import { runEventStream, type SseEncoder } from "./sse.js";

/** Everything the routes share. */
export interface ServeContext {
  log: ServeLog;
  hub: RunHub;
  runs: ServeRuns;
  agents: AgentTable;
  auth: Authenticator;
  limits: ResolvedLimits;
  redactor: Redactor;
  /** What file parts a user message may carry. */
  attachments: AttachmentRules;
  /** Bytes handed to the runtime, for the server's stats. */
  onBytes?: (bytes: number) => void;
  /** A stream opened (+1) or ended (-1). */
  onStream?: (delta: 1 | -1) => void;
}

/** Hono's environment for the routes: the principal set by the auth middleware. */
export interface ServeEnv {
  Variables: { principal: Principal };
}

/** The request's principal (the auth middleware guarantees one under `/api`). */
export function principalOf(c: Context<ServeEnv>): string {
  return c.get("principal").id;
}

/** The headers of the AI SDK's UI message stream, plus the run and chat ids. */
export function streamHeaders(
  runId: string,
  chatId: string,
  protocol: "ui" | "agui",
): Record<string, string> {
  return {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    // nginx and some proxies buffer responses unless told not to: SSE must flow event by event.
    "x-accel-buffering": "no",
    ...(protocol === "ui" && { "x-vercel-ai-ui-message-stream": "v1" }),
    "x-glassloop-run-id": runId,
    "x-glassloop-chat-id": chatId,
  };
}

/** An SSE response over a run's items after `after`. */
export function sseResponse(
  ctx: ServeContext,
  run: { runId: string; chatId: string },
  after: number,
  encoder: SseEncoder,
  protocol: "ui" | "agui",
): Response {
  const body = runEventStream({
    hub: ctx.hub,
    runId: run.runId,
    after,
    encoder,
    keepAliveMs: ctx.limits.keepAliveMs,
    idleMs: ctx.limits.streamIdleMs,
    ...(ctx.onBytes && { onBytes: ctx.onBytes }),
    ...(ctx.onStream && { onStream: ctx.onStream }),
  });
  return new Response(body, { status: 200, headers: streamHeaders(run.runId, run.chatId, protocol) });
}

/** Every entry of a run, page by page (for folding into a message or a trace view). */
export async function* allEntries(ctx: ServeContext, runId: string): AsyncGenerator<LogEntry> {
  for (let after = -1; ; ) {
    const { entries } = await ctx.hub.read(runId, after, 500);
    if (entries.length === 0) return;
    yield* entries;
    after = (entries.at(-1) as LogEntry).seq;
  }
}
