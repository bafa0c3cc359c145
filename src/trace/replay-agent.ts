import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { Agent } from "../agent/agent.js";
import type { AgentConfigWithoutOutput } from "../agent/agent-config.js";
import type { CliIO } from "../cli/command.js";
import { UsageError } from "../cli/command.js";
import { loadConfig } from "../cli/config.js";
import { scenarioOfRequest } from "../cli/demo/scenarios.js";
import { importUserModule } from "../cli/user-module.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { Model } from "../models/model.js";
import { canonicalFromBody } from "../providers/replay/canonical.js";
import { BUILTIN_TOOLS, type BuiltinEntry } from "../tools/builtin/index.js";
import type { Tool } from "../tools/tool.js";
import { answeredFromRecording, PURE_BUILTINS } from "./recorded-tools.js";
import type { ReplayableAgent } from "./replay.js";

/**
 * The agent for `trace replay`: from `--agent <module>` (default export `(model) => Agent`, or an
 * agent config without `model`), or else rebuilt from the recording itself when it was a
 * `glassloop run` with built-in tools: the recorded instructions, tools and limits.
 */
export async function loadReplayAgent(
  spec: string | undefined,
  io: CliIO,
  events: readonly AgentEvent[],
  options: RecordedAgentOptions = {},
): Promise<(model: Model) => ReplayableAgent> {
  if (spec === undefined) return recordedAgent(events, io, options);
  const path = resolve(io.cwd, spec);
  if (!existsSync(path)) throw new UsageError(`--agent: no module at ${path}`, "trace");
  const loaded = (await importUserModule(path, io, "trace", "agent module")).default;
  if (typeof loaded === "function") {
    return (model) => {
      const agent = (loaded as (model: Model) => unknown)(model);
      if (!isReplayable(agent))
        throw new UsageError(`--agent: ${spec}'s default export did not return an Agent`, "trace");
      return agent;
    };
  }
  if (loaded instanceof Agent) {
    throw new UsageError(
      `--agent: ${spec} exports an Agent, whose model cannot be swapped; export (model) => new Agent({ ..., model }) instead`,
      "trace",
    );
  }
  if (loaded !== null && typeof loaded === "object") {
    // Validated by the Agent constructor itself (tools, context, output), with clear errors.
    const config = loaded as AgentConfigWithoutOutput<unknown, unknown>;
    return (model) => new Agent({ ...config, model });
  }
  throw new UsageError(
    `--agent: ${spec} has no default export (a function of the model, or an agent config)`,
    "trace",
  );
}

function isReplayable(value: unknown): value is ReplayableAgent {
  return (
    value !== null && typeof value === "object" && typeof (value as { run?: unknown }).run === "function"
  );
}

/** How the agent of a recorded `glassloop run` is rebuilt. */
export interface RecordedAgentOptions {
  /** Run the recording's tools for real, in the working directory (`--run-tools`); else only pure ones run. */
  runTools?: boolean;
  /** Told the names of the tools answered from the recording instead of run. */
  onAnswered?: (names: string[]) => void;
  /** Told when the recording is a `glassloop demo` example's, replayed with that example's agent. */
  onDemo?: (example: string) => void;
}

/**
 * The agent of a recorded `glassloop run`: its instructions, built-in tools and limits. The
 * trace chose those tools and will choose their arguments, so only pure ones run unless
 * `runTools`; the others answer from the recording (a crafted trace cannot write a file).
 */
function recordedAgent(
  events: readonly AgentEvent[],
  io: CliIO,
  options: RecordedAgentOptions,
): (model: Model) => ReplayableAgent {
  const request = events.find((e) => e.type === "model_request");
  const start = events.find((e) => e.type === "run_start");
  if (!request) throw new UsageError("the trace has no model request to replay", "trace");
  const recorded = canonicalFromBody(request.body, request.model);
  // A recording of `glassloop demo` (recordings/*.jsonl) replays with the example's own agent.
  const demo = scenarioOfRequest(recorded);
  if (demo) {
    options.onDemo?.(demo.name);
    return (model) => demo.agent(model);
  }
  const names = new Set(recorded.tools.map((t) => t.name));
  const { config } = loadConfig(io.cwd, io.env);
  const shared = { root: resolve(io.cwd, config.root ?? "."), ...(config.http && { http: config.http }) };
  const tools: Tool<never, unknown, unknown>[] = [];
  for (const [entryName, entry] of Object.entries(BUILTIN_TOOLS) as [string, BuiltinEntry][]) {
    const made = entry.create(shared).filter((t) => names.has(t.name));
    const gated = made.filter((t) => entry.needsApproval.includes(t.name));
    if (gated.length > 0) {
      throw new UsageError(
        `the recording used ${gated.map((t) => t.name).join(", ")} (built-in "${entryName}"), which runs only with a human's approval; replay it with --agent <module> to decide how`,
        "trace",
      );
    }
    tools.push(...made);
    for (const t of made) names.delete(t.name);
  }
  const answered: string[] = [];
  if (options.runTools !== true) {
    for (const [i, t] of tools.entries()) {
      if (PURE_BUILTINS.has(t.name)) continue;
      tools[i] = answeredFromRecording(t, events);
      answered.push(t.name);
    }
  }
  if (names.size > 0) {
    throw new UsageError(
      `the recording used tools that are not built in (${[...names].join(", ")}); give the agent that has them with --agent <module>`,
      "trace",
    );
  }
  const limits = start?.type === "run_start" ? start.limits : undefined;
  if (answered.length > 0) options.onAnswered?.(answered);
  return (model) =>
    new Agent({
      name: "glassloop",
      model,
      tools,
      ...(recorded.instructions !== undefined && { instructions: recorded.instructions }),
      ...(limits && { limits }),
    });
}
