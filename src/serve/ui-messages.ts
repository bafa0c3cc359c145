/**
 * A finished run's assistant message, built on the server by folding its UI chunks the way
 * `useChat` does, so a reloaded page shows exactly what the stream showed (same id, same parts).
 */
import type { LogEntry } from "./log-items.js";
import type { RunRecord } from "./serve-log.js";
import { assistantMessageId, type StreamContext, type UIChunk, uiChunks } from "./ui-stream.js";

/** A UI message as `useChat` holds it (the subset of `UIMessage` the server produces). */
export interface ServedUIMessage {
  id: string;
  role: "user" | "assistant";
  metadata?: Record<string, unknown>;
  parts: Record<string, unknown>[];
}

/** The user's message of a run. */
export function userMessage(run: RunRecord): ServedUIMessage {
  // Files by URL are shown again; an inline file's bytes stay in the store, so it shows as its name.
  const files = (run.attachments ?? []).map((a) =>
    a.url !== undefined
      ? {
          type: "file",
          mediaType: a.mediaType,
          url: a.url,
          ...(a.filename !== undefined && { filename: a.filename }),
        }
      : { type: "data-glassloop-file", data: { mediaType: a.mediaType, filename: a.filename ?? null } },
  );
  return { id: `${run.runId}:user`, role: "user", parts: [{ type: "text", text: run.input }, ...files] };
}

/** Folds a run's entries into its assistant message. */
export function assistantMessage(run: RunRecord, entries: Iterable<LogEntry>): ServedUIMessage {
  const ctx: StreamContext = { runId: run.runId, chatId: run.chatId, agent: run.agent, model: run.model };
  const message: ServedUIMessage = { id: assistantMessageId(run.runId), role: "assistant", parts: [] };
  const open = new Map<string, Record<string, unknown>>();
  const tools = new Map<string, Record<string, unknown>>();
  for (const entry of entries) for (const chunk of uiChunks(entry.item, ctx)) apply(chunk);
  return message;

  function apply(chunk: UIChunk): void {
    switch (chunk.type) {
      case "start":
      case "finish":
      case "message-metadata": {
        const meta = (chunk.messageMetadata ?? undefined) as Record<string, unknown> | undefined;
        if (meta) message.metadata = { ...message.metadata, ...meta };
        return;
      }
      case "start-step":
        message.parts.push({ type: "step-start" });
        return;
      case "text-start":
      case "reasoning-start": {
        const part = {
          type: chunk.type === "text-start" ? "text" : "reasoning",
          text: "",
          state: "streaming",
        };
        open.set(chunk.id as string, part);
        message.parts.push(part);
        return;
      }
      case "text-delta":
      case "reasoning-delta": {
        const part = open.get(chunk.id as string);
        if (part) part.text = `${part.text as string}${chunk.delta as string}`;
        return;
      }
      case "text-end":
      case "reasoning-end": {
        const part = open.get(chunk.id as string);
        if (part) part.state = "done";
        open.delete(chunk.id as string);
        return;
      }
      case "tool-input-start":
      case "tool-input-available": {
        const id = chunk.toolCallId as string;
        let part = tools.get(id);
        if (!part) {
          part = { type: `tool-${chunk.toolName as string}`, toolCallId: id };
          tools.set(id, part);
          message.parts.push(part);
        }
        part.state = chunk.type === "tool-input-start" ? "input-streaming" : "input-available";
        if (chunk.type === "tool-input-available") part.input = chunk.input;
        return;
      }
      case "tool-approval-request":
        update(chunk, { state: "approval-requested", approval: { id: chunk.approvalId } });
        return;
      case "tool-output-available":
        update(chunk, { state: "output-available", output: chunk.output });
        return;
      case "tool-output-error":
      case "tool-input-error":
        update(chunk, { state: "output-error", errorText: chunk.errorText });
        return;
      case "tool-output-denied":
        update(chunk, { state: "output-denied" });
        return;
      default:
        if (chunk.type.startsWith("data-")) {
          const existing = message.parts.find((p) => p.type === chunk.type && p.id === chunk.id);
          if (existing) existing.data = chunk.data;
          else message.parts.push({ type: chunk.type, id: chunk.id, data: chunk.data });
        }
    }
  }

  function update(chunk: UIChunk, fields: Record<string, unknown>): void {
    const part = tools.get(chunk.toolCallId as string);
    if (part) Object.assign(part, fields);
  }
}
