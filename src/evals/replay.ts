import { containedPath } from "../core/read-caps.js";
import { exchangesOf, ReplayDivergenceError, ReplayModel, readTraceEvents } from "../entries/trace.js";
import { ConfigError, GlassloopError, type Model } from "../index.js";
import { dataset } from "./dataset.js";
import type { EvalDefinition } from "./define.js";
import { evaluate } from "./evaluate.js";
import { readResult } from "./result-file.js";
import { shown } from "./scorers/result.js";
import type { EvalResult, TrialRecord } from "./types.js";

/** A recorded eval no longer reproduces: the first case whose request or scores changed, and how. */
export class EvalReplayError extends GlassloopError {
  constructor(
    message: string,
    readonly caseId: string,
    readonly repeat: number,
    readonly kind: "request" | "scores" | "status" | "missing",
  ) {
    super("eval_replay_diverged", message);
  }
}

/**
 * Replays a recorded eval offline: every trial's model (and judge) answers come from its recorded
 * trace, so nothing goes over the network and the run is deterministic. Throws `EvalReplayError`
 * at the first case (in dataset order) whose agent now sends a different request (with the diff)
 * or whose scores differ from the recording. One line in a vitest suite:
 *
 *   it("the routing eval still holds", () => replayEval(routingEval, "evals/recorded/routing"));
 */
export async function replayEval<TOutput, TExpected>(
  definition: EvalDefinition<TOutput, TExpected>,
  recording: string,
): Promise<EvalResult> {
  if (typeof definition.agent !== "function") {
    throw new ConfigError(
      "replayEval: the eval's agent must be a function ({ model }) => agent, so the recording can answer",
    );
  }
  const { result: recorded, dir } = readResult(recording);
  const recordedCases = new Map(recorded.cases.map((c) => [c.id, c]));
  for (const c of definition.dataset.cases) {
    if (!recordedCases.has(c.id)) {
      throw new EvalReplayError(
        `case "${c.id}" is not in the recording ${recording}: record the eval again`,
        c.id,
        1,
        "missing",
      );
    }
  }
  // Only what was recorded is replayed: trials that were skipped or aborted have no answers.
  const cases = definition.dataset.cases.filter((c) =>
    recordedCases.get(c.id)?.trials.some((t) => t.status !== "skipped" && t.status !== "aborted"),
  );
  // The recording is someone else's file: each trace it names must lie inside it (a `../` path
  // would be read and shown in the diff). Checked before anything runs.
  const traces = new Map<string, { agent?: string; judge?: string }>();
  for (const c of recorded.cases) {
    for (const t of Array.isArray(c.trials) ? c.trials : []) {
      const inside = (name: unknown) =>
        typeof name === "string" ? containedPath(dir, name, "a trace path in the recording") : undefined;
      const agent = inside(t.trace);
      const judge = inside(t.judgeTrace);
      traces.set(`${c.id}\u0000${t.repeat}`, { ...(agent && { agent }), ...(judge && { judge }) });
    }
  }
  const stop = new AbortController();
  const replayed = await evaluate({
    ...definition,
    dataset: dataset(definition.dataset.name, cases),
    repeat: recorded.config.repeat,
    concurrency: 1,
    signal: stop.signal,
    models: (caseId, repeat) => {
      const paths = traces.get(`${caseId}\u0000${repeat}`);
      return {
        agent: replayOf(paths?.agent, `${caseId} r${repeat}`),
        judge: replayOf(paths?.judge, `${caseId} r${repeat} (judge)`),
      };
    },
    onEvent: (event) => {
      if (event.type !== "trial_end") return;
      const before = recordedCases.get(event.caseId)?.trials.find((t) => t.repeat === event.repeat);
      if (before && differenceOf(event.caseId, before, event.trial)) stop.abort();
    },
  });
  for (const c of replayed.cases) {
    const before = recordedCases.get(c.id);
    for (const trial of c.trials) {
      const was = before?.trials.find((t) => t.repeat === trial.repeat);
      if (!was || trial.status === "skipped" || trial.status === "aborted") continue;
      const problem = differenceOf(c.id, was, trial);
      if (problem) throw problem;
    }
  }
  // The answers are the recording's: say so wherever the result is shown (replayed calls cost $0).
  return { ...replayed, model: `replay:${recording}` };
}

function differenceOf(caseId: string, before: TrialRecord, now: TrialRecord): EvalReplayError | undefined {
  const where = `case "${caseId}" (repeat ${now.repeat})`;
  const d = now.error?.divergence;
  if (d) {
    return new EvalReplayError(
      `${where}: the agent's request differs from the recording at model call ${d.call}, ${d.path}\n` +
        `  - recorded: ${shown(d.recorded, 400)}\n` +
        `  + now:      ${shown(d.actual, 400)}\n` +
        `  (${now.error?.message})`,
      caseId,
      now.repeat,
      "request",
    );
  }
  const judged = now.scores.find((s) => s.divergence);
  if (judged?.divergence) {
    const j = judged.divergence;
    return new EvalReplayError(
      `${where}: the ${judged.scorer} scorer's request differs from the recording at model call ${j.call}, ${j.path}\n` +
        `  - recorded: ${shown(j.recorded, 400)}\n` +
        `  + now:      ${shown(j.actual, 400)}`,
      caseId,
      now.repeat,
      "request",
    );
  }
  if (now.status !== before.status) {
    return new EvalReplayError(
      `${where}: the trial ended ${now.status}${now.error ? ` (${now.error.code}: ${now.error.message})` : ""}; the recording ended ${before.status}`,
      caseId,
      now.repeat,
      "status",
    );
  }
  const changed: string[] = [];
  for (const s of now.scores) {
    const was = before.scores.find((b) => b.scorer === s.scorer);
    if (!was) changed.push(`${s.scorer}: new scorer (${s.score.toFixed(2)})`);
    else if (was.pass !== s.pass || Math.abs(was.score - s.score) > 1e-9) {
      changed.push(
        `${s.scorer}: ${was.score.toFixed(2)} (${was.pass ? "pass" : "fail"}) → ${s.score.toFixed(2)} (${s.pass ? "pass" : "fail"}): ${s.reason}`,
      );
    }
  }
  for (const b of before.scores)
    if (!now.scores.some((s) => s.scorer === b.scorer)) changed.push(`${b.scorer}: scorer removed`);
  if (changed.length === 0) return undefined;
  return new EvalReplayError(
    `${where}: scores changed from the recording\n  ${changed.join("\n  ")}`,
    caseId,
    now.repeat,
    "scores",
  );
}

/** The recorded answers of one trace, or a model that refuses every call when there were none. */
function replayOf(path: string | undefined, label: string): Model {
  if (path !== undefined) {
    // The path was checked to stay inside the recording; a link put there since is not followed.
    const exchanges = exchangesOf(readTraceEvents(path, { noFollow: true }));
    if (exchanges.length > 0) return new ReplayModel(exchanges, { source: path });
  }
  return {
    id: `replay:${label}`,
    price: { inputPerMTok: 0, outputPerMTok: 0 },
    generate: async () => {
      throw new ReplayDivergenceError(
        `Replay diverged at model call 1: the recording of ${label} has no model calls, and a call was made`,
        1,
        "(call)",
        undefined,
        "a model call",
      );
    },
  };
}
