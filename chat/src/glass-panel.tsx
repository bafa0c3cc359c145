import type { ResponseView } from "../../src/trace/run-view.js";
import { RequestDiffView } from "../../viewer/src/diff-view.js";
import { JsonBlock } from "../../viewer/src/json-block.js";
import { StepResponse } from "../../viewer/src/step-detail.js";
import { useFetch } from "../../viewer/src/use-fetch.js";
import { call, paths, type StepGlass } from "./api.js";
import type { StepRef } from "./turn-steps.js";

/**
 * The glass of one step: the exact request body that went over the wire, what changed since the
 * previous request (the trace viewer's own diff view, across turns too), and the response.
 */
export function GlassPanel({ at, previous }: { at: StepRef; previous: StepRef | undefined }) {
  const glass = useFetch(() => call<StepGlass>(paths.step(at.runId, at.step)), `${at.runId}/${at.step}`);
  const before = useFetch(
    () =>
      previous
        ? call<StepGlass>(paths.step(previous.runId, previous.step)).then((g) => g.request?.body)
        : Promise.resolve(undefined),
    previous ? `${previous.runId}/${previous.step}` : "none",
  );
  if (glass.state === "loading") return <p class="muted">Loading step {at.step}…</p>;
  if (glass.state === "error")
    return (
      <p class="error-box" role="alert">
        {glass.message}
      </p>
    );
  const { request, response } = glass.value;
  return (
    <div class="glass" data-testid="glass" data-step={at.step}>
      <h3>
        Request{glass.value.attempts > 1 ? ` (attempt ${request?.attempt} of ${glass.value.attempts})` : ""}
      </h3>
      {request ? (
        <>
          {request.url && <p class="mono muted url">POST {request.url}</p>}
          <JsonBlock value={request.body} testid="glass-request" />
        </>
      ) : (
        <p class="muted">No request in this step.</p>
      )}
      <h3>Changes since the previous request</h3>
      {!previous || !request ? (
        <p class="muted" data-testid="request-diff">
          First request of the chat.
        </p>
      ) : before.state === "ok" ? (
        <RequestDiffView before={before.value} after={request.body} />
      ) : (
        <p class="muted">{before.state === "error" ? before.message : "Loading the previous request…"}</p>
      )}
      <h3>Response</h3>
      {isResponseView(response) ? (
        <StepResponse response={response} costUsd={glass.value.costUsd} />
      ) : response ? (
        <JsonBlock value={response} testid="glass-response" />
      ) : (
        <p class="muted">No response (the call failed or is still running).</p>
      )}
    </div>
  );
}

/** The viewer's response view needs its usage numbers; anything else is shown as JSON. */
function isResponseView(response: StepGlass["response"]): response is StepGlass["response"] & ResponseView {
  const usage = response?.usage as Partial<ResponseView["usage"]> | undefined;
  return (
    typeof usage?.inputTokens === "number" &&
    typeof usage.outputTokens === "number" &&
    Array.isArray(response?.toolCalls) &&
    typeof response?.latencyMs === "number"
  );
}
