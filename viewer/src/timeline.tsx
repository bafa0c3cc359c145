import { formatMs } from "../../src/trace/format.js";
import type { StepView } from "../../src/trace/run-view.js";
import type { ServedRun } from "./api.js";
import { href } from "./route.js";

/** Steps as bars on the run's time axis; a step's model call and tool calls are segments of it. */
export function Timeline({ run, selected }: { run: ServedRun; selected: number | undefined }) {
  const total = Math.max(1, run.durationMs ?? 0, ...run.steps.map((s) => s.offsetMs + (s.durationMs ?? 0)));
  const pct = (ms: number) => `${Math.max(0, Math.min(100, (ms / total) * 100))}%`;
  return (
    <>
      <ol class="timeline" data-testid="timeline">
        {run.steps.map((s) => {
          const bad =
            s.error !== undefined || s.tools.some((t) => t.status !== undefined && t.status !== "ok");
          return (
            <li key={s.step} class={`${s.step === selected ? "selected" : ""} ${bad ? "bad" : ""}`}>
              <a href={href({ page: "run", runId: run.runId, step: s.step })} data-testid={`step-${s.step}`}>
                <span class="step-label">step {s.step}</span>
                <span class="track">
                  <span class="bar" style={{ left: pct(s.offsetMs), width: pct(s.durationMs ?? 0) }}>
                    {segments(s)}
                  </span>
                </span>
                <span class="step-meta">
                  {s.durationMs === undefined ? "–" : formatMs(s.durationMs)}
                  {s.tools.length > 0 && ` · ${s.tools.map((t) => t.toolName).join(", ")}`}
                  {s.workers && (
                    <span class="badge worker" data-testid={`step-${s.step}-worker`}>
                      {s.workers.join(" → ")}
                    </span>
                  )}
                  {s.error && <strong class="bad-text"> · {s.error.code}</strong>}
                </span>
              </a>
            </li>
          );
        })}
      </ol>
      <TimelineLegend />
    </>
  );
}

/** What the timeline's colours mean; the swatches use the very classes the bars do. */
function TimelineLegend() {
  return (
    <ul class="legend timeline-legend" data-testid="timeline-legend">
      <li>
        <span class="swatch seg-model" />
        model call
      </li>
      <li>
        <span class="swatch seg-tool" />
        tool calls
      </li>
      <li>
        <span class="swatch swatch-bad" />
        step with an error
      </li>
    </ul>
  );
}

function segments(step: StepView) {
  const d = step.durationMs;
  if (!d) return null;
  const model = step.response?.latencyMs ?? 0;
  const tools = step.tools.reduce((m, t) => Math.max(m, t.durationMs ?? 0), 0);
  const part = (ms: number) => `${Math.min(100, (ms / d) * 100)}%`;
  return (
    <>
      <span class="seg seg-model" style={{ width: part(model) }} title={`model ${formatMs(model)}`} />
      {tools > 0 && (
        <span class="seg seg-tool" style={{ width: part(tools) }} title={`tools ${formatMs(tools)}`} />
      )}
    </>
  );
}
