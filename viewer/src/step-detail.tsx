import { useState } from "preact/hooks";
import { formatMs, formatUsd, workersLabel } from "../../src/trace/format.js";
import type { ResponseView, StepView, ToolCallView } from "../../src/trace/run-view.js";
import type { ServedRun } from "./api.js";
import { RequestDiffView } from "./diff-view.js";
import { JsonBlock, TextOrJson } from "./json-block.js";
import { StatusBadge } from "./status-badge.js";

/** One step in full: the exact request, what changed since the last one, the response, the tools. */
export function StepDetail({ run, step }: { run: ServedRun; step: StepView }) {
  const [attempt, setAttempt] = useState(step.requests.length - 1);
  const request = step.requests[Math.min(attempt, step.requests.length - 1)];
  const previous = previousRequest(run, step);
  return (
    <section class="panel step" data-testid="step-detail" data-step={step.step}>
      <h2>
        Step {step.step}
        <span class="muted">
          {step.durationMs !== undefined && ` · ${formatMs(step.durationMs)}`}
          {step.costUsd !== undefined && ` · ${formatUsd(step.costUsd)}`}
        </span>
        {step.workers && (
          <span class="badge worker" data-testid="step-worker">
            {workersLabel(step.workers)}
          </span>
        )}
      </h2>
      {step.error && (
        <p class="error-box">
          <strong>{step.error.code}</strong>: {step.error.message}
        </p>
      )}
      {step.retries.map((r) => (
        <p key={r.attempt} class="warn-box">
          retry {r.attempt} after {formatMs(r.delayMs)}: {r.error}
        </p>
      ))}
      {step.fallbacks?.map((f) => (
        <p key={`${f.from}-${f.time}`} class="warn-box" data-testid="fallback">
          {f.from} not used ({f.reason}
          {f.status !== undefined && `, HTTP ${f.status}`}, after {formatMs(f.elapsedMs)})
          {f.to !== undefined ? `, moved on to ${f.to}` : ", no model left"}: {f.error}
        </p>
      ))}
      {step.guardrails?.map((g) => (
        <p
          key={`${g.name}-${g.stage}-${g.time}`}
          class={g.action === "allow" ? "muted" : "warn-box"}
          data-testid="guardrail"
        >
          guardrail {g.name} ({g.stage.replace("_", " ")}
          {g.toolName !== undefined && ` ${g.toolName}`}
          {g.toolCallId !== undefined && ` ${g.toolCallId}`}): {g.action}
          {g.message !== undefined && `: ${g.message}`}
        </p>
      ))}
      {step.rateLimitWaits?.map((w) => (
        <p key={`${w.model}-${w.time}`} class="muted" data-testid="rate-limit-wait">
          held {formatMs(w.waitMs)} by the {w.limit} limit of {w.model}
        </p>
      ))}
      <div class="columns">
        <div>
          <h3>
            Request
            {step.requests.length > 1 &&
              step.requests.map((r, i) => (
                <button
                  key={r.attempt}
                  type="button"
                  class={i === attempt ? "chip on" : "chip"}
                  onClick={() => setAttempt(i)}
                >
                  attempt {r.attempt}
                </button>
              ))}
          </h3>
          {request ? (
            <>
              {request.url && <p class="mono muted">POST {request.url}</p>}
              <JsonBlock value={request.body} testid="request-json" />
            </>
          ) : (
            <p class="muted">No request in this step.</p>
          )}
        </div>
        <div>
          <h3>Changes since the previous request</h3>
          {request && previous !== undefined ? (
            <RequestDiffView before={previous} after={request.body} />
          ) : (
            <p class="muted" data-testid="request-diff">
              First request of the run.
            </p>
          )}
          <h3>Response</h3>
          {step.reasoningDropped && (
            <p class="muted" data-testid="reasoning-dropped">
              Left out {step.reasoningDropped.count} reasoning part(s) made by{" "}
              {step.reasoningDropped.from.join(", ")}: this provider cannot read them.
            </p>
          )}
          {step.response ? (
            <StepResponse response={step.response} costUsd={step.costUsd} />
          ) : (
            <p class="bad-text">No response (the call failed).</p>
          )}
        </div>
      </div>
      {step.tools.length > 0 && (
        <>
          <h3>Tool calls</h3>
          {step.tools.map((t) => (
            <ToolCall key={t.toolCallId} call={t} showWorker={(step.workers?.length ?? 0) > 1} />
          ))}
        </>
      )}
    </section>
  );
}

function previousRequest(run: ServedRun, step: StepView): unknown {
  const index = run.steps.indexOf(step);
  for (let i = index - 1; i >= 0; i--) {
    const last = run.steps[i]?.requests.at(-1);
    if (last) return last.body;
  }
  return undefined;
}

/** A model response: finish reason, tokens, latency, cost, the reasoning, text and tool calls, the raw body on demand. */
export function StepResponse({
  response: r,
  costUsd,
}: {
  response: ResponseView;
  costUsd: number | undefined;
}) {
  const [raw, setRaw] = useState(false);
  return (
    <div data-testid="response">
      <p class="facts-line">
        {r.model !== undefined && (
          <span>
            answered by <code data-testid="answered-by">{r.model}</code>
          </span>
        )}
        {/* "finish tool_calls" read like a tool named finish: the field is named in full. */}
        <span>
          finish reason <code data-testid="finish-reason">{r.finishReason}</code>
        </span>
        <span data-testid="tokens">
          {inputSplit(r.usage)} / {r.usage.outputTokens.toLocaleString()} out tokens
          {r.usage.reasoningTokens ? ` (${r.usage.reasoningTokens.toLocaleString()} reasoning)` : ""}
        </span>
        <span>latency {formatMs(r.latencyMs)}</span>
        {costUsd !== undefined && <span>cost {formatUsd(costUsd)}</span>}
      </p>
      {r.reasoning && r.reasoning.length > 0 && (
        // Collapsed by default: the thinking is often longer than the answer.
        <details data-testid="reasoning">
          <summary class="muted">
            reasoning ({r.reasoning.length} part{r.reasoning.length === 1 ? "" : "s"})
          </summary>
          {r.reasoning.map((part, i) => (
            <pre key={`${part.id ?? ""}${i}`} class="text muted">
              {part.redacted ? "[redacted thinking]" : part.text || "[no text: signed or encrypted only]"}
              {part.signature ? `\n· signature ${part.signature.length} chars` : ""}
            </pre>
          ))}
        </details>
      )}
      {r.text && <pre class="text">{r.text}</pre>}
      {r.toolCalls.map((c) => (
        <p key={c.id} class="mono">
          → {c.name}({c.arguments}) <span class="muted">{c.id}</span>
        </p>
      ))}
      {r.raw !== undefined && (
        <>
          <button type="button" class="chip" onClick={() => setRaw(!raw)}>
            {raw ? "hide" : "show"} raw response
          </button>
          {raw && <JsonBlock value={r.raw} />}
        </>
      )}
    </div>
  );
}

/** Input tokens split into fresh, cache reads and cache writes, so caching is visible per step. */
function inputSplit(usage: ResponseView["usage"]): string {
  const cached = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteInputTokens ?? 0;
  const fresh = usage.inputTokens - cached - written;
  if (cached === 0 && written === 0) return `${usage.inputTokens.toLocaleString()} in`;
  const parts = [`${fresh.toLocaleString()} fresh`];
  if (cached > 0) parts.push(`${cached.toLocaleString()} cached`);
  if (written > 0) parts.push(`${written.toLocaleString()} written to cache`);
  return `${usage.inputTokens.toLocaleString()} in (${parts.join(" + ")})`;
}

function ToolCall({ call, showWorker }: { call: ToolCallView; showWorker: boolean }) {
  const bad = call.status !== undefined && call.status !== "ok";
  return (
    <div class={`tool ${bad ? "bad" : ""}`} data-testid={`tool-${call.toolCallId}`}>
      <p class="tool-head">
        <strong class="mono">{call.toolName}</strong> <StatusBadge status={call.status ?? "no result"} />{" "}
        <span class="muted">
          {call.toolCallId}
          {call.durationMs !== undefined && ` · ${formatMs(call.durationMs)}`}
        </span>
        {/* Only in a step that changed workers: otherwise the step's badge says it. */}
        {showWorker && call.worker !== undefined && (
          <span class="badge worker" data-testid="tool-worker">
            on {call.worker}
          </span>
        )}
      </p>
      <div class="columns">
        <div>
          <h4>arguments</h4>
          <TextOrJson text={call.arguments} />
        </div>
        <div>
          <h4>{bad ? "error" : "result"}</h4>
          {call.content === undefined ? <p class="muted">none</p> : <TextOrJson text={call.content} />}
          {call.errorDetail && (
            <>
              <h4>detail (never shown to the model)</h4>
              <pre class="text bad-text">{call.errorDetail}</pre>
            </>
          )}
        </div>
      </div>
      {call.subRuns.map((sub) => (
        <p key={sub.runId} class="muted" data-testid="sub-run">
          sub-run {sub.agent !== undefined && <strong>{sub.agent}</strong>}{" "}
          <span class="mono">{sub.runId}</span> · {sub.model} · <StatusBadge status={sub.status} /> ·{" "}
          {sub.steps.length} steps ·{" "}
          {sub.steps.flatMap((s) => s.tools.map((t) => t.toolName)).join(", ") || "no tools"}
        </p>
      ))}
    </div>
  );
}
