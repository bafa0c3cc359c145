import { useState } from "preact/hooks";
import { formatUsd } from "../../src/trace/format.js";
import { paths } from "./api.js";
import { GlassPanel } from "./glass-panel.js";
import { ToolView } from "./tool-view.js";
import type { StepGroup, StepRef, Turn } from "./turn-steps.js";
import { type ChatMessage, isToolPart, type MessagePart } from "./ui-message.js";

/** A user's message: the text as typed. */
export function UserMessage({ message }: { message: ChatMessage }) {
  return (
    <div class="msg user" data-testid="message" data-role="user">
      {message.parts.map((part, i) =>
        part.type === "text" ? (
          <div key={i} class="text-body">
            {part.text}
          </div>
        ) : null,
      )}
    </div>
  );
}

/**
 * An assistant turn, step by step. Model text is rendered as text nodes, never as markup: a
 * `<script>` or a markdown link the model writes shows as the characters it wrote.
 */
export function AssistantMessage({
  message,
  turn,
  previousStep,
  canDecide,
  onDecide,
}: {
  message: ChatMessage;
  turn: Turn;
  /** The request before this turn's first one (the previous turn's last step). */
  previousStep: StepRef | undefined;
  canDecide: boolean;
  onDecide: (toolCallId: string, approved: boolean) => void;
}) {
  let previous = previousStep;
  return (
    <div class="msg assistant" data-testid="message" data-role="assistant" data-run-id={turn.runId}>
      {turn.steps.map((group, i) => {
        const at =
          turn.runId !== undefined && group.step !== undefined
            ? { runId: turn.runId, step: group.step }
            : undefined;
        const before = previous;
        if (at) previous = at;
        return (
          <Step
            key={group.step ?? `p${i}`}
            group={group}
            at={at}
            previous={before}
            canDecide={canDecide}
            onDecide={onDecide}
          />
        );
      })}
      <TurnFooter message={message} runId={turn.runId} />
    </div>
  );
}

function Step({
  group,
  at,
  previous,
  canDecide,
  onDecide,
}: {
  group: StepGroup;
  at: StepRef | undefined;
  previous: StepRef | undefined;
  canDecide: boolean;
  onDecide: (toolCallId: string, approved: boolean) => void;
}) {
  const [open, setOpen] = useState(false);
  return (
    <section class="step" data-testid="step" data-step={group.step}>
      {group.parts.map((part, i) => (
        <Part key={i} part={part} canDecide={canDecide} onDecide={onDecide} />
      ))}
      {at && (
        <div class="step-bar">
          <button
            type="button"
            class="glass-toggle"
            aria-expanded={open}
            data-testid="glass-toggle"
            onClick={() => setOpen(!open)}
          >
            {open ? "▾" : "▸"} step {at.step}: exact request
          </button>
          <a
            class="trace-link"
            href={paths.trace(at.runId, at.step)}
            target="_blank"
            rel="noopener noreferrer"
          >
            in trace viewer
          </a>
        </div>
      )}
      {at && open && <GlassPanel at={at} previous={previous} />}
    </section>
  );
}

function Part({
  part,
  canDecide,
  onDecide,
}: {
  part: MessagePart;
  canDecide: boolean;
  onDecide: (toolCallId: string, approved: boolean) => void;
}) {
  if (isToolPart(part)) return <ToolView part={part} canDecide={canDecide} onDecide={onDecide} />;
  switch (part.type) {
    case "text":
      return (
        <div class="text-body" data-testid="assistant-text">
          {"text" in part ? part.text : ""}
        </div>
      );
    case "reasoning":
      return (
        <details class="reasoning" data-testid="reasoning">
          <summary class="muted">reasoning{"state" in part && part.state === "streaming" ? "…" : ""}</summary>
          <div class="text-body muted">{"text" in part ? part.text : ""}</div>
        </details>
      );
    case "source-url":
    case "source-document":
    case "file":
      // Shown as text: the page never fetches or links what the model cites.
      return (
        <p class="source muted">
          {part.type === "file" ? "file" : "source"}: {"title" in part && part.title ? `${part.title} ` : ""}
          {"url" in part && part.url ? <span class="mono">{part.url}</span> : null}
        </p>
      );
    default:
      return null;
  }
}

function TurnFooter({ message, runId }: { message: ChatMessage; runId: string | undefined }) {
  const meta = message.metadata ?? {};
  const usage = meta.usage as { inputTokens?: number; outputTokens?: number } | undefined;
  const facts = [
    typeof meta.model === "string" ? meta.model : undefined,
    usage?.inputTokens !== undefined
      ? `${usage.inputTokens.toLocaleString()} in / ${(usage.outputTokens ?? 0).toLocaleString()} out`
      : undefined,
    typeof meta.costUsd === "number" && meta.costUsd > 0 ? formatUsd(meta.costUsd) : undefined,
    typeof meta.status === "string" && meta.status !== "ok" && meta.status !== "succeeded"
      ? meta.status.replaceAll("_", " ")
      : undefined,
  ].filter((f): f is string => f !== undefined);
  return (
    <p class="turn-foot muted" data-testid="turn-foot">
      {facts.join(" · ")}
      {runId && (
        <>
          {facts.length > 0 ? " · " : ""}
          <a href={paths.trace(runId)} target="_blank" rel="noopener noreferrer" data-testid="trace-link">
            run in trace viewer
          </a>
        </>
      )}
    </p>
  );
}
