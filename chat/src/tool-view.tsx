import { JsonBlock } from "../../viewer/src/json-block.js";
import { type ToolPart, toolNameOf } from "./ui-message.js";

const LABELS: Record<ToolPart["state"], string> = {
  "input-streaming": "writing arguments…",
  "input-available": "running…",
  "approval-requested": "waiting for your approval",
  "approval-responded": "answer sent…",
  "output-available": "done",
  "output-error": "failed",
  "output-denied": "rejected",
};

/** A value the model or a tool produced: JSON pretty-printed, a string as plain text. */
function Value({ value, testid }: { value: unknown; testid?: string }) {
  if (typeof value === "string")
    return (
      <pre class="text" data-testid={testid}>
        {value}
      </pre>
    );
  return <JsonBlock value={value} testid={testid} />;
}

/**
 * One tool call of a turn: its arguments, its result or error, and, while it waits, the approve
 * and reject buttons, bound to this call (the decision travels with its approval id).
 */
export function ToolView({
  part,
  canDecide,
  onDecide,
}: {
  part: ToolPart;
  canDecide: boolean;
  onDecide: (toolCallId: string, approved: boolean) => void;
}) {
  const name = toolNameOf(part);
  const bad = part.state === "output-error" || part.state === "output-denied";
  return (
    <div
      class={`tool ${bad ? "bad" : ""} ${part.state === "approval-requested" ? "asking" : ""}`}
      data-testid="tool"
      data-tool-call-id={part.toolCallId}
      data-state={part.state}
    >
      <p class="tool-head">
        <strong class="mono">{name}</strong> <span class={`state ${part.state}`}>{LABELS[part.state]}</span>
        {part.approval?.approved !== undefined && (
          <span class="muted"> · you {part.approval.approved ? "approved" : "rejected"} it</span>
        )}
      </p>
      <details open={part.state === "approval-requested" || part.state === "input-streaming"}>
        <summary class="muted">arguments</summary>
        {part.state === "input-streaming" ? (
          <pre class="text">{typeof part.rawInput === "string" ? part.rawInput : ""}</pre>
        ) : (
          <Value value={part.input ?? part.rawInput} testid="tool-input" />
        )}
      </details>
      {part.state === "approval-requested" && (
        <fieldset class="decide">
          <legend class="sr-only">Approve or reject this {name} call</legend>
          <button
            type="button"
            class="approve"
            disabled={!canDecide}
            data-testid="approve"
            onClick={() => onDecide(part.toolCallId, true)}
          >
            Approve
          </button>
          <button
            type="button"
            class="reject"
            disabled={!canDecide}
            data-testid="reject"
            onClick={() => onDecide(part.toolCallId, false)}
          >
            Reject
          </button>
        </fieldset>
      )}
      {part.state === "output-available" && (
        <>
          <p class="label muted">result</p>
          <Value value={part.output} testid="tool-output" />
        </>
      )}
      {part.state === "output-error" && (
        <pre class="text bad-text" data-testid="tool-error">
          {part.errorText}
        </pre>
      )}
    </div>
  );
}
