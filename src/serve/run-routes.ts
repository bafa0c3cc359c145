/** Routes on one run: its summary, stream, cancel, approvals, the glass (a step's exact request), its trace view. */
import type { Hono } from "hono";
import { z } from "zod";
import { diffRequests } from "../core/request-diff.js";
import type { AgentEvent, ModelRequestEvent, ModelResponseEvent } from "../core/vocabulary/events.js";
import { buildRunView } from "../trace/build-run-view.js";
import { summarize } from "../trace/run-summary.js";
import { fieldErrors } from "./chat-request.js";
import { uiEncoder } from "./chat-routes.js";
import { refuse } from "./errors.js";
import { readJsonBody } from "./limits.js";
import { answersBody, type GivenAnswer } from "./questions.js";
import { allEntries, principalOf, type ServeContext, type ServeEnv, sseResponse } from "./serve-context.js";
import type { RunRecord } from "./serve-log.js";
import { parseEventId } from "./sse.js";
import { stepUrl, usageSummary } from "./ui-stream.js";

const decisionsBody = z.object({
  decisions: z
    .array(
      z.object({
        approvalId: z.string().min(1).max(200),
        approved: z.boolean(),
        reason: z.string().max(500).optional(),
      }),
    )
    .min(1)
    .max(100),
});

/** Mounts the run routes on `app`. */
export function runRoutes(app: Hono<ServeEnv>, ctx: ServeContext): void {
  const { log, runs, limits } = ctx;

  /** The caller's run, or 404 (another principal's run looks exactly like a missing one). */
  async function ownRun(principal: string, runId: string): Promise<RunRecord> {
    const run = await log.getRun(runId);
    if (!run || run.principal !== principal) throw refuse.notFound("run");
    return run;
  }

  app.get("/api/runs/:runId", async (c) => {
    const run = await ownRun(principalOf(c), c.req.param("runId"));
    const steps = new Set<number>();
    for await (const { item } of allEntries(ctx, run.runId))
      if (item.kind === "event" && item.event.type === "model_request" && item.event.purpose === undefined)
        steps.add(item.event.step);
    return c.json({
      runId: run.runId,
      chatId: run.chatId,
      agent: run.agent,
      model: run.model,
      status: run.status,
      usage: run.usage ? usageSummary(run.usage) : null,
      costUsd: run.usage?.costUsd ?? 0,
      createdAt: run.createdAt,
      updatedAt: run.updatedAt,
      steps: [...steps].map((step) => ({ step, requestUrl: stepUrl(run.runId, step) })),
    });
  });

  app.get("/api/runs/:runId/stream", async (c) => {
    const run = await ownRun(principalOf(c), c.req.param("runId"));
    const last = parseEventId(c.req.header("last-event-id") ?? c.req.query("after"));
    const after = last && last.runId === run.runId ? last.seq : -1;
    return sseResponse(ctx, run, after, uiEncoder(run), "ui");
  });

  app.post("/api/runs/:runId/cancel", async (c) => {
    const principal = principalOf(c);
    const run = await ownRun(principal, c.req.param("runId"));
    const status = await runs.cancel(principal, run.runId);
    return c.json({ runId: run.runId, status }, 202);
  });

  app.post("/api/runs/:runId/approvals", async (c) => {
    const principal = principalOf(c);
    const run = await ownRun(principal, c.req.param("runId"));
    const parsed = decisionsBody.safeParse(await readJsonBody(c.req.raw, limits.maxBodyBytes));
    if (!parsed.success) throw refuse.invalid("the decisions are not valid", fieldErrors(parsed.error));
    const decisions = parsed.data.decisions.map((d) => ({
      approvalId: d.approvalId,
      approved: d.approved,
      ...(d.reason !== undefined && { reason: d.reason }),
    }));
    const { run: resumed } = await runs.decide(principal, decisions, run.chatId);
    if (resumed.runId !== run.runId) throw refuse.notFound("approval");
    return c.json({ runId: run.runId, status: "running" }, 202);
  });

  app.post("/api/runs/:runId/answers", async (c) => {
    const principal = principalOf(c);
    const run = await ownRun(principal, c.req.param("runId"));
    const parsed = answersBody.safeParse(await readJsonBody(c.req.raw, limits.maxBodyBytes));
    if (!parsed.success) throw refuse.invalid("the answers are not valid", fieldErrors(parsed.error));
    if (!runs.answer) throw refuse.notFound("question");
    const { after } = await runs.answer(principal, run.runId, parsed.data.answers as GivenAnswer[]);
    return c.json({ runId: run.runId, status: "running", after }, 202);
  });

  app.get("/api/runs/:runId/steps/:step", async (c) => {
    const run = await ownRun(principalOf(c), c.req.param("runId"));
    const step = Number(c.req.param("step"));
    if (!Number.isSafeInteger(step) || step < 1)
      throw refuse.invalid("the step must be a whole number from 1");
    const requests = new Map<number, ModelRequestEvent>();
    let attempts = 0;
    let response: ModelResponseEvent | undefined;
    for await (const { item } of allEntries(ctx, run.runId)) {
      if (item.kind !== "event") continue;
      const event = item.event;
      if (event.type === "model_request" && event.purpose === undefined && event.step <= step) {
        requests.set(event.step, event);
        if (event.step === step) attempts++;
      } else if (event.type === "model_response" && event.purpose === undefined && event.step === step) {
        response = event;
      }
    }
    const request = requests.get(step);
    if (!request) throw refuse.notFound("step");
    const previous = [...requests.keys()].filter((s) => s < step).sort((a, b) => b - a)[0];
    const before = previous === undefined ? undefined : requests.get(previous);
    return c.json({
      runId: run.runId,
      step,
      model: request.model,
      request: { url: request.url ?? null, attempt: request.attempt, body: request.body },
      attempts,
      response: response
        ? {
            text: response.text,
            toolCalls: response.toolCalls,
            finishReason: response.finishReason,
            usage: response.usage,
            latencyMs: response.latencyMs,
            raw: response.raw ?? null,
          }
        : null,
      previous: previous === undefined ? null : { step: previous },
      diff: before ? diffRequests(before.body, request.body) : null,
    });
  });

  app.get("/trace/api/runs", async (c) => {
    const principal = principalOf(c);
    const chats = await log.listChats(principal, 200);
    const list = [];
    for (const chat of chats)
      for (const run of await log.listChatRuns(principal, chat.chatId))
        list.push(summarize(buildRunView(await events(run.runId)), "serve"));
    return c.json({ runs: list, skipped: [] });
  });

  app.get("/trace/api/runs/:runId", async (c) => {
    const run = await ownRun(principalOf(c), c.req.param("runId"));
    return c.json({ ...buildRunView(await events(run.runId)), file: "serve" });
  });

  async function events(runId: string): Promise<AgentEvent[]> {
    const out: AgentEvent[] = [];
    for await (const { item } of allEntries(ctx, runId)) if (item.kind === "event") out.push(item.event);
    return out;
  }
}
