/**
 * Log items → AG-UI events (`@ag-ui/core` 1.0), one item at a time with no state. A pause for
 * approval finishes the AG-UI run with an `interrupt` outcome, one interrupt per waiting call,
 * answered by the next run's `resume` entries.
 */
import type { LogItem } from "./log-items.js";
import { stepUrl, usageSummary } from "./ui-stream.js";

/** What the events of one AG-UI run share. */
export interface AguiContext {
  threadId: string;
  runId: string;
}

/** One AG-UI event, as JSON. */
export type AguiEvent = { type: string } & Record<string, unknown>;

/** The events for one item. */
export function aguiEvents(item: LogItem, ctx: AguiContext): AguiEvent[] {
  const id = (part: string) => `${ctx.runId}:${part}`;
  switch (item.kind) {
    case "part_start":
      return item.partKind === "text"
        ? [{ type: "TEXT_MESSAGE_START", messageId: id(item.part), role: "assistant" }]
        : [
            { type: "REASONING_START", messageId: id(item.part) },
            { type: "REASONING_MESSAGE_START", messageId: id(item.part), role: "reasoning" },
          ];
    case "part_end":
      return item.partKind === "text"
        ? [{ type: "TEXT_MESSAGE_END", messageId: id(item.part) }]
        : [
            { type: "REASONING_MESSAGE_END", messageId: id(item.part) },
            { type: "REASONING_END", messageId: id(item.part) },
          ];
    case "approval":
      return [
        {
          type: "RUN_FINISHED",
          threadId: ctx.threadId,
          runId: ctx.runId,
          outcome: {
            type: "interrupt",
            interrupts: item.approvals.map((a) => ({
              id: a.approvalId,
              reason: "tool_approval",
              toolCallId: a.toolCallId,
              message: `Approve ${a.toolName} with ${JSON.stringify(a.input)}?`,
              responseSchema: {
                type: "object",
                properties: { approved: { type: "boolean" } },
                required: ["approved"],
              },
              metadata: { toolName: a.toolName, input: a.input },
            })),
          },
        },
      ];
    case "question":
      // Answered over HTTP (POST /api/runs/:runId/answers), not with an AG-UI resume entry.
      return [
        {
          type: "RUN_FINISHED",
          threadId: ctx.threadId,
          runId: ctx.runId,
          outcome: {
            type: "interrupt",
            interrupts: item.questions.map((q) => ({
              id: q.questionId,
              reason: "input_required",
              toolCallId: q.toolCallId,
              message: q.message,
              responseSchema: q.schema,
              metadata: { toolName: q.toolName, source: q.source },
            })),
          },
        },
      ];
    case "tool_input_start":
      return [{ type: "TOOL_CALL_START", toolCallId: item.toolCallId, toolCallName: item.toolName }];
    case "tool_input_delta":
      return [{ type: "TOOL_CALL_ARGS", toolCallId: item.toolCallId, delta: item.delta }];
    case "tool_input_dropped":
      return [{ type: "TOOL_CALL_END", toolCallId: item.toolCallId }];
    case "resumed":
      return [];
    case "interrupted":
      return [{ type: "RUN_ERROR", message: item.message, code: "interrupted" }];
    case "event":
      return eventEvents(item, ctx, id);
  }
}

function eventEvents(
  item: Extract<LogItem, { kind: "event" }>,
  ctx: AguiContext,
  id: (part: string) => string,
): AguiEvent[] {
  const event = item.event;
  switch (event.type) {
    case "run_start":
      return [{ type: "RUN_STARTED", threadId: ctx.threadId, runId: ctx.runId }];
    case "step_start":
      return [{ type: "STEP_STARTED", stepName: `step ${event.step}` }];
    case "model_request":
      if (event.purpose === "summary" || event.attempt !== 1) return [];
      return [
        {
          type: "CUSTOM",
          name: "glassloop.step",
          value: { runId: ctx.runId, step: event.step, requestUrl: stepUrl(ctx.runId, event.step) },
        },
      ];
    case "text_delta":
    case "reasoning_delta":
      if (event.text === "") return [];
      return [
        {
          type: event.type === "text_delta" ? "TEXT_MESSAGE_CONTENT" : "REASONING_MESSAGE_CONTENT",
          messageId: id(item.part as string),
          delta: event.text,
        },
      ];
    case "model_response":
      if (event.purpose === "summary") return [];
      return event.toolCalls.flatMap((call) => [
        ...(item.streamed?.includes(call.id)
          ? []
          : [
              { type: "TOOL_CALL_START", toolCallId: call.id, toolCallName: call.name },
              { type: "TOOL_CALL_ARGS", toolCallId: call.id, delta: call.arguments },
            ]),
        { type: "TOOL_CALL_END", toolCallId: call.id },
      ]);
    case "tool_result":
      return [
        {
          type: "TOOL_CALL_RESULT",
          messageId: `${ctx.runId}:${event.toolCallId}:result`,
          toolCallId: event.toolCallId,
          role: "tool",
          content: event.content,
        },
      ];
    case "step_end":
      return [
        { type: "STEP_FINISHED", stepName: `step ${event.step}` },
        ...(event.usage
          ? [
              {
                type: "STATE_SNAPSHOT",
                snapshot: {
                  runId: ctx.runId,
                  step: event.step,
                  usage: usageSummary(event.usage),
                  costUsd: event.usage.costUsd ?? 0,
                },
              },
            ]
          : []),
      ];
    case "error":
      return [{ type: "RUN_ERROR", message: event.message, code: event.code }];
    case "run_end":
      // A pause finished the AG-UI run at its approval item; an error at its error event.
      if (event.status !== "ok") return [];
      return [
        {
          type: "RUN_FINISHED",
          threadId: ctx.threadId,
          runId: ctx.runId,
          result: event.output ?? null,
          outcome: { type: "success" },
        },
      ];
    default:
      return [];
  }
}
