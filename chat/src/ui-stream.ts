import type { ChatMessage, DataPart, TextPart, ToolPart } from "./ui-message.js";

/**
 * One chunk of the AI SDK's UI message stream protocol (v1, `x-vercel-ai-ui-message-stream: v1`),
 * as the page reads it. The page parses the protocol itself rather than bundling `ai`: its
 * `readUIMessageStream` alone is ~200 kB of script (zod included), four times the whole page.
 * test/chat/ui-stream.test.ts checks this assembler against `ai`'s on the same chunks.
 */
export type UiChunk =
  | { type: "start"; messageId?: string; messageMetadata?: unknown }
  | { type: "finish"; finishReason?: string; messageMetadata?: unknown }
  | { type: "abort"; reason?: string }
  | { type: "error"; errorText: string }
  | { type: "message-metadata"; messageMetadata: unknown }
  | { type: "start-step" }
  | { type: "finish-step" }
  | { type: "text-start" | "text-end" | "reasoning-start" | "reasoning-end"; id: string }
  | { type: "text-delta" | "reasoning-delta"; id: string; delta: string }
  | {
      type: "tool-input-start";
      toolCallId: string;
      toolName: string;
      dynamic?: boolean;
      inputEncoding?: "json" | "text";
    }
  | { type: "tool-input-delta"; toolCallId: string; inputTextDelta: string }
  | { type: "tool-input-available"; toolCallId: string; toolName: string; input: unknown; dynamic?: boolean }
  | {
      type: "tool-input-error";
      toolCallId: string;
      toolName: string;
      input: unknown;
      errorText: string;
      dynamic?: boolean;
    }
  | { type: "tool-approval-request"; approvalId: string; toolCallId: string }
  | { type: "tool-output-available"; toolCallId: string; output: unknown }
  | { type: "tool-output-error"; toolCallId: string; errorText: string }
  | { type: "tool-output-denied"; toolCallId: string }
  | { type: "source-url"; sourceId: string; url: string; title?: string }
  | { type: "source-document"; sourceId: string; mediaType: string; title: string; filename?: string }
  | { type: "file"; url: string; mediaType: string }
  | { type: `data-${string}`; id?: string; data: unknown; transient?: boolean };

/** How a stream ended, as far as the page can tell. */
export type StreamEnd = "finished" | "aborted" | "cut";

/**
 * Builds one assistant message from UI message stream chunks, the way `useChat` does: text and
 * reasoning by part id, tool calls by call id (also across steps, for a result or an approval that
 * comes after a pause), data parts replaced by `type` + `id`, metadata merged.
 */
export class MessageAssembler {
  private message: ChatMessage;
  private readonly open = new Map<string, TextPart>();
  private readonly inputs = new Map<string, string>();
  /** The model's finish reason, once `finish` arrived. */
  finishReason: string | undefined;
  /** Error parts of the stream, in order (the run's failure, a refused approval, …). */
  readonly errors: string[] = [];
  /** Transient data parts: shown once, never stored in the message. */
  readonly transient: DataPart[] = [];
  end: StreamEnd | undefined;

  /** Continues `base` when it is an assistant message (a run resumed after an approval), else starts one. */
  constructor(base: ChatMessage | undefined, newId: string) {
    this.message =
      base?.role === "assistant"
        ? { ...base, parts: base.parts.map((p) => ({ ...p })) }
        : { id: newId, role: "assistant", parts: [] };
    // A tool whose input was still streaming when the page loaded keeps collecting it.
    for (const part of this.message.parts) {
      if ("toolCallId" in part && part.state === "input-streaming")
        this.inputs.set(part.toolCallId, typeof part.rawInput === "string" ? part.rawInput : "");
    }
  }

  /** The message so far, as a fresh object (parts copied) that a view can keep. */
  snapshot(): ChatMessage {
    return { ...this.message, parts: this.message.parts.map((p) => ({ ...p })) };
  }

  /** Applies one chunk; a chunk that refers to nothing known is recorded as an error, never thrown. */
  apply(chunk: UiChunk): void {
    const parts = this.message.parts;
    switch (chunk.type) {
      case "start":
        if (chunk.messageId) this.message.id = chunk.messageId;
        this.mergeMetadata(chunk.messageMetadata);
        return;
      case "finish":
        this.finishReason = chunk.finishReason ?? this.finishReason;
        this.mergeMetadata(chunk.messageMetadata);
        this.end = "finished";
        return;
      case "abort":
        this.end = "aborted";
        return;
      case "error":
        this.errors.push(chunk.errorText);
        return;
      case "message-metadata":
        this.mergeMetadata(chunk.messageMetadata);
        return;
      case "start-step":
        parts.push({ type: "step-start" });
        return;
      case "finish-step":
        this.open.clear();
        return;
      case "text-start":
      case "reasoning-start": {
        const part: TextPart =
          chunk.type === "text-start"
            ? { type: "text", text: "", state: "streaming" }
            : { type: "reasoning", id: chunk.id, text: "", state: "streaming" };
        this.open.set(`${part.type}:${chunk.id}`, part);
        parts.push(part);
        return;
      }
      case "text-delta":
      case "reasoning-delta": {
        const part = this.open.get(`${chunk.type === "text-delta" ? "text" : "reasoning"}:${chunk.id}`);
        if (part) part.text += chunk.delta;
        else this.errors.push(`${chunk.type} for a part that never started (${chunk.id})`);
        return;
      }
      case "text-end":
      case "reasoning-end": {
        const key = `${chunk.type === "text-end" ? "text" : "reasoning"}:${chunk.id}`;
        const part = this.open.get(key);
        if (part) part.state = "done";
        this.open.delete(key);
        return;
      }
      case "tool-input-start":
        this.inputs.set(chunk.toolCallId, "");
        this.upsertTool(chunk.toolCallId, chunk.toolName, chunk.dynamic, { state: "input-streaming" });
        return;
      case "tool-input-delta": {
        const text = (this.inputs.get(chunk.toolCallId) ?? "") + chunk.inputTextDelta;
        this.inputs.set(chunk.toolCallId, text);
        const part = this.tool(chunk.toolCallId);
        if (part) part.rawInput = text;
        return;
      }
      case "tool-input-available":
        this.inputs.delete(chunk.toolCallId);
        this.upsertTool(chunk.toolCallId, chunk.toolName, chunk.dynamic, {
          state: "input-available",
          input: chunk.input,
          rawInput: undefined,
        });
        return;
      case "tool-input-error":
        this.inputs.delete(chunk.toolCallId);
        this.upsertTool(chunk.toolCallId, chunk.toolName, chunk.dynamic, {
          state: "output-error",
          rawInput: chunk.input,
          errorText: chunk.errorText,
        });
        return;
      case "tool-approval-request":
        this.updateTool(chunk.toolCallId, {
          state: "approval-requested",
          approval: { id: chunk.approvalId },
        });
        return;
      case "tool-output-available":
        this.updateTool(chunk.toolCallId, { state: "output-available", output: chunk.output });
        return;
      case "tool-output-error":
        this.updateTool(chunk.toolCallId, { state: "output-error", errorText: chunk.errorText });
        return;
      case "tool-output-denied":
        this.updateTool(chunk.toolCallId, { state: "output-denied" });
        return;
      case "source-url":
        parts.push({ type: "source-url", url: chunk.url, title: chunk.title });
        return;
      case "source-document":
        parts.push({
          type: "source-document",
          title: chunk.title,
          mediaType: chunk.mediaType,
          filename: chunk.filename,
        });
        return;
      case "file":
        parts.push({ type: "file", url: chunk.url, mediaType: chunk.mediaType });
        return;
      default:
        this.applyData(chunk);
    }
  }

  private applyData(chunk: UiChunk): void {
    if (!("data" in chunk) || !chunk.type.startsWith("data-")) return; // a newer protocol's chunk: skipped
    const part: DataPart = { type: chunk.type, data: chunk.data, ...(chunk.id ? { id: chunk.id } : {}) };
    if (chunk.transient) {
      this.transient.push(part);
      return;
    }
    const same =
      chunk.id === undefined
        ? undefined
        : this.message.parts.find(
            (p): p is DataPart => p.type === chunk.type && "id" in p && p.id === chunk.id,
          );
    if (same) same.data = chunk.data;
    else this.message.parts.push(part);
  }

  private mergeMetadata(metadata: unknown): void {
    if (metadata === null || typeof metadata !== "object") return;
    this.message.metadata = { ...this.message.metadata, ...(metadata as Record<string, unknown>) };
  }

  private tool(toolCallId: string): ToolPart | undefined {
    for (let i = this.message.parts.length - 1; i >= 0; i--) {
      const part = this.message.parts[i];
      if (part && "toolCallId" in part && part.toolCallId === toolCallId) return part;
    }
    return undefined;
  }

  private upsertTool(
    toolCallId: string,
    toolName: string,
    dynamic: boolean | undefined,
    fields: Partial<ToolPart>,
  ): void {
    const existing = this.tool(toolCallId);
    const naming = dynamic
      ? { type: "dynamic-tool" as const, toolName }
      : { type: `tool-${toolName}` as const };
    if (existing) Object.assign(existing, naming, fields);
    else this.message.parts.push({ ...naming, toolCallId, state: "input-streaming", ...fields });
  }

  private updateTool(toolCallId: string, fields: Partial<ToolPart>): void {
    const part = this.tool(toolCallId);
    if (part) Object.assign(part, fields);
    else this.errors.push(`No tool call ${toolCallId} for a ${fields.state} chunk`);
  }
}
