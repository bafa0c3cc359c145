/**
 * Log items → AI SDK UI message stream chunks (`ai` 6, `x-vercel-ai-ui-message-stream: v1`), one
 * item at a time with no state, so a stream can start at any item. The chunk shapes are those of
 * `uiMessageChunkSchema` in `ai@6`; `docs/serve.md` has the table.
 */
import type { RunUsage } from "../core/vocabulary/usage.js";
import type { LogItem } from "./log-items.js";
import { parseOutput } from "./tool-output.js";

/** What every chunk of one run's stream shares. */
export interface StreamContext {
  runId: string;
  chatId: string;
  agent: string;
  model: string;
}

/** One UI message stream chunk, as JSON. */
export type UIChunk = { type: string } & Record<string, unknown>;

/** The id of the one assistant UI message of a run (the same on every stream of it). */
export function assistantMessageId(runId: string): string {
  return `${runId}:assistant`;
}

/** Where the page fetches a step's exact request and response. */
export function stepUrl(runId: string, step: number): string {
  return `/api/runs/${encodeURIComponent(runId)}/steps/${step}`;
}

/** The trace viewer's page of a run. */
export function traceUrl(runId: string): string {
  return `/trace/#/run/${encodeURIComponent(runId)}`;
}

/** The usage a client sees: tokens, requests and tool calls, without the per-step list. */
export function usageSummary(usage: RunUsage) {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
    requests: usage.requests,
    toolCalls: usage.toolCalls,
  };
}

function metadata(ctx: StreamContext, extra: Record<string, unknown> = {}) {
  return { runId: ctx.runId, chatId: ctx.chatId, agent: ctx.agent, model: ctx.model, ...extra };
}

/** The chunks for one item (often none: events the chat has no part for). */
export function uiChunks(item: LogItem, ctx: StreamContext): UIChunk[] {
  switch (item.kind) {
    case "part_start":
      return [{ type: item.partKind === "text" ? "text-start" : "reasoning-start", id: item.part }];
    case "part_end":
      return [{ type: item.partKind === "text" ? "text-end" : "reasoning-end", id: item.part }];
    case "approval":
      return item.approvals.flatMap((a) => [
        // The validated arguments replace the raw ones: the person decides on what would run.
        { type: "tool-input-available", toolCallId: a.toolCallId, toolName: a.toolName, input: a.input },
        { type: "tool-approval-request", approvalId: a.approvalId, toolCallId: a.toolCallId },
      ]);
    case "question":
      // A data part per question: the page renders its form; useChat keeps it as a data part.
      return item.questions.map((q) => ({ type: "data-glassloop-question", id: q.questionId, data: q }));
    case "tool_input_start":
      return [{ type: "tool-input-start", toolCallId: item.toolCallId, toolName: item.toolName }];
    case "tool_input_delta":
      return [{ type: "tool-input-delta", toolCallId: item.toolCallId, inputTextDelta: item.delta }];
    case "tool_input_dropped":
      return [
        {
          type: "tool-input-error",
          toolCallId: item.toolCallId,
          toolName: item.toolName,
          // ai requires the field; the partial arguments of a call that never ran are not kept.
          input: null,
          errorText: `not called: ${item.reason}`,
        },
      ];
    case "resumed":
      return [];
    case "interrupted":
      return [
        { type: "error", errorText: `interrupted: ${item.message}` },
        { type: "finish", finishReason: "error", messageMetadata: metadata(ctx, { status: "interrupted" }) },
      ];
    case "event":
      return eventChunks(item, ctx);
  }
}

function eventChunks(item: Extract<LogItem, { kind: "event" }>, ctx: StreamContext): UIChunk[] {
  const event = item.event;
  switch (event.type) {
    case "run_start":
      return [
        { type: "start", messageId: assistantMessageId(ctx.runId), messageMetadata: metadata(ctx) },
        {
          type: "data-glassloop-run",
          id: "run",
          data: { ...metadata(ctx), traceUrl: traceUrl(ctx.runId) },
        },
      ];
    case "step_start":
      return [{ type: "start-step" }];
    case "model_request":
      if (event.purpose === "summary" || event.attempt !== 1) return [];
      return [
        {
          type: "data-glassloop-step",
          id: `step-${event.step}`,
          data: { runId: ctx.runId, step: event.step, requestUrl: stepUrl(ctx.runId, event.step) },
        },
      ];
    case "text_delta":
      return [{ type: "text-delta", id: item.part as string, delta: event.text }];
    case "reasoning_delta":
      return [{ type: "reasoning-delta", id: item.part as string, delta: event.text }];
    case "model_response":
      if (event.purpose === "summary") return [];
      // Calls whose arguments streamed already have their start and pieces; the rest get them here.
      return event.toolCalls.flatMap((call) => [
        ...(item.streamed?.includes(call.id)
          ? []
          : [
              { type: "tool-input-start", toolCallId: call.id, toolName: call.name },
              { type: "tool-input-delta", toolCallId: call.id, inputTextDelta: call.arguments },
            ]),
        {
          type: "tool-input-available",
          toolCallId: call.id,
          toolName: call.name,
          input: parseOutput(call.arguments),
        },
      ]);
    case "tool_result":
      if (event.status === "ok")
        return [
          { type: "tool-output-available", toolCallId: event.toolCallId, output: parseOutput(event.content) },
        ];
      if (event.status === "rejected") return [{ type: "tool-output-denied", toolCallId: event.toolCallId }];
      return [{ type: "tool-output-error", toolCallId: event.toolCallId, errorText: event.content }];
    case "step_end":
      return [
        { type: "finish-step" },
        ...(event.usage
          ? [
              {
                type: "message-metadata",
                messageMetadata: metadata(ctx, {
                  usage: usageSummary(event.usage),
                  costUsd: event.usage.costUsd ?? 0,
                }),
              },
            ]
          : []),
      ];
    case "error":
      return [{ type: "error", errorText: `${event.code}: ${event.message}` }];
    case "run_end":
      return [
        {
          type: "finish",
          finishReason: finishReason(event.status),
          messageMetadata: metadata(ctx, {
            status: event.status,
            usage: usageSummary(event.usage),
            costUsd: event.usage.costUsd ?? 0,
          }),
        },
      ];
    default:
      return [];
  }
}

function finishReason(status: string): string {
  switch (status) {
    case "ok":
      return "stop";
    case "awaiting_approval":
      return "tool-calls";
    case "budget_exceeded":
    case "aborted":
      return "other";
    default:
      return "error";
  }
}
