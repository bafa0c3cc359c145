import { type ChangeObject, diffLines } from "diff";
import { useState } from "preact/hooks";
import { type DiffEntry, describeValue, diffRequests } from "../../src/core/request-diff.js";
import "./diff-view.css";

const CONTEXT = 3;

/**
 * What changed in the prompt since the previous request: the structural changes by JSON path
 * (messages added, fields changed), and a line diff of the pretty-printed bodies.
 */
export function RequestDiffView({ before, after }: { before: unknown; after: unknown }) {
  const [mode, setMode] = useState<"changes" | "lines">("changes");
  const diff = diffRequests(before, after);
  if (diff.identical)
    return (
      <p class="muted" data-testid="request-diff">
        Identical to the previous request.
      </p>
    );
  return (
    <div data-testid="request-diff">
      <div class="tabs">
        <button type="button" class={mode === "changes" ? "on" : ""} onClick={() => setMode("changes")}>
          changes ({diff.entries.length})
        </button>
        <button
          type="button"
          class={mode === "lines" ? "on" : ""}
          onClick={() => setMode("lines")}
          data-testid="line-diff-tab"
        >
          line diff
        </button>
        {diff.unchanged.length > 0 && <span class="muted"> unchanged: {diff.unchanged.join(", ")}</span>}
      </div>
      {mode === "changes" ? (
        <ul class="changes">
          {diff.entries.map((e) => (
            <Change key={`${e.kind}:${e.path}`} entry={e} />
          ))}
        </ul>
      ) : (
        <LineDiff before={before} after={after} />
      )}
    </div>
  );
}

function Change({ entry }: { entry: DiffEntry }) {
  const [open, setOpen] = useState(entry.kind !== "changed" || typeof entry.after !== "object");
  const sign = entry.kind === "added" ? "+" : entry.kind === "removed" ? "−" : "~";
  return (
    <li class={`change ${entry.kind}`} data-kind={entry.kind}>
      <button type="button" class="change-head" onClick={() => setOpen(!open)}>
        <span class="sign">{sign}</span> <span class="mono">{entry.path || "(body)"}</span>{" "}
        <span class="muted">
          {entry.kind === "changed"
            ? `${describeValue(entry.before, 40)} → ${describeValue(entry.after, 40)}`
            : describeValue(entry.value, 60)}
        </span>
      </button>
      {open &&
        (entry.kind === "changed" ? (
          <LineDiff before={entry.before} after={entry.after} />
        ) : (
          <pre class="json">{JSON.stringify(entry.value, null, 2)}</pre>
        ))}
    </li>
  );
}

/** A unified line diff of two pretty-printed JSON values, long unchanged stretches folded. */
export function LineDiff({ before, after }: { before: unknown; after: unknown }) {
  const parts = diffLines(pretty(before), pretty(after));
  const rows: { kind: "add" | "del" | "same" | "fold"; text: string }[] = [];
  parts.forEach((part: ChangeObject<string>, i: number) => {
    const lines = part.value.replace(/\n$/, "").split("\n");
    if (part.added) for (const l of lines) rows.push({ kind: "add", text: l });
    else if (part.removed) for (const l of lines) rows.push({ kind: "del", text: l });
    else {
      const keepHead = i === 0 ? 0 : CONTEXT;
      const keepTail = i === parts.length - 1 ? 0 : CONTEXT;
      if (lines.length <= keepHead + keepTail + 1)
        for (const l of lines) rows.push({ kind: "same", text: l });
      else {
        for (const l of lines.slice(0, keepHead)) rows.push({ kind: "same", text: l });
        rows.push({ kind: "fold", text: `… ${lines.length - keepHead - keepTail} unchanged lines` });
        for (const l of lines.slice(lines.length - keepTail)) rows.push({ kind: "same", text: l });
      }
    }
  });
  return (
    <pre class="line-diff" data-testid="line-diff">
      {rows.map((r, i) => (
        <div key={i} class={`ld ${r.kind}`}>
          {r.kind === "add" ? "+ " : r.kind === "del" ? "- " : r.kind === "fold" ? "" : "  "}
          {r.text}
        </div>
      ))}
    </pre>
  );
}

function pretty(value: unknown): string {
  return typeof value === "string" ? value : `${JSON.stringify(value, null, 2)}\n`;
}
