import { accessSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Agent } from "../agent/agent.js";
import type { Limits } from "../core/vocabulary/limits.js";
import type { McpElicitationHandler } from "../mcp/elicitation.js";
import type { Model } from "../models/model.js";
import { canonicalFromBody } from "../providers/replay/canonical.js";
import { ReplayModel } from "../providers/replay.js";
import { type ProviderOptions, resolveModel } from "../providers/resolve.js";
import { RunNotResumableError } from "../store/errors.js";
import { redactingStore } from "../store/redacting-store.js";
import { SqliteStore } from "../store/sqlite/sqlite-store.js";
import type { Store } from "../store/store.js";
import { DEFAULT_TRACE_DIR, TraceWriter } from "../trace/writer.js";
import { type CliIO, UsageError } from "./command.js";
import { type CliConfig, loadConfig } from "./config.js";
import { type DemoScenario, scenarioOfRequest } from "./demo/scenarios.js";
import { redactorFor } from "./failure.js";
import { offerLocalModel } from "./local-offer.js";
import { type ConnectedMcpServers, connectMcpServers } from "./mcp-servers.js";
import { type ModelChoice, NoModelError, selectModel } from "./model-select.js";
import "./providers.js";
import { chooseTools } from "./tool-set.js";

/** The flags `run` and `chat` share. */
export interface AgentFlags {
  model?: string;
  tools?: string;
  "max-steps"?: string;
  "max-cost"?: string;
  instructions?: string;
  root?: string;
  trace?: string;
  "no-trace"?: boolean;
  /** With no model configured, download the default local model without asking. */
  yes?: boolean;
}

/** `parseArgs` options for `AgentFlags`. */
export const AGENT_OPTIONS = {
  model: { type: "string", short: "m" },
  tools: { type: "string", short: "t" },
  "max-steps": { type: "string" },
  "max-cost": { type: "string" },
  instructions: { type: "string" },
  root: { type: "string" },
  trace: { type: "string" },
  "no-trace": { type: "boolean" },
  yes: { type: "boolean", short: "y" },
} as const;

/** The system prompt when neither --instructions nor the config gives one. */
export const DEFAULT_INSTRUCTIONS =
  "You are a helpful assistant. Use the tools when they help, and never make up a tool's result.";

/** An agent ready to run, and what the user should know about how it was made. */
export interface Prepared {
  agent: Agent<undefined, unknown>;
  model: Model;
  /** Where runs are checkpointed and sessions kept; undefined when the database cannot be opened. */
  store?: Store;
  /** Why there is no store, when there is none. */
  storeProblem?: string;
  /** The config's MCP servers, connected (their tools are the agent's; `/prompt` reads their prompts). */
  mcp?: ConnectedMcpServers;
  choice: ModelChoice;
  config: CliConfig;
  /** The built-in tool groups the agent offers. */
  toolNames: string[];
  /** For `--resume`: the user named tools for a run that has no record of its own. */
  allowNewTools: boolean;
  /** What the user should know about the tools chosen (a resume without a record). */
  toolNote?: string;
  /** Whose agent runs, when it is not the one the flags describe (a demo recording's). */
  agentNote?: string;
  tracer?: TraceWriter;
  /** Why the default trace is not written, when it cannot be. */
  traceProblem?: string;
  /** Writes of the trace that failed during the run (filled as they happen). */
  traceFailures: string[];
}

/**
 * Builds the agent of `run` or `chat` from flags, environment and config; bad input is a usage or
 * config error. Runs are durable (checkpointed in `.glassloop/glassloop.db`, or `GLASSLOOP_DB`) so
 * a killed run can be resumed; when the database cannot be opened and no session or resume needs
 * it, the run goes ahead without, and `storeProblem` says why.
 */
export async function prepareAgent(
  flags: AgentFlags,
  io: CliIO,
  needs: {
    store: boolean;
    resume?: string;
    /** Who answers the configured MCP servers' questions, and where their warnings go. */
    mcp?: { onElicitation?: McpElicitationHandler; warn: (message: string) => void };
  } = { store: false },
): Promise<Prepared> {
  const { config, path } = loadConfig(io.cwd, io.env);
  const limits: Limits = {};
  const maxSteps = flags["max-steps"] ?? config.maxSteps?.toString();
  if (maxSteps !== undefined) limits.maxSteps = positive(maxSteps, "--max-steps", true);
  const maxCost = flags["max-cost"] ?? config.maxCostUsd?.toString();
  if (maxCost !== undefined) limits.maxCostUsd = positive(maxCost, "--max-cost", false);
  let store: Store | undefined;
  let storeProblem: string | undefined;
  try {
    // The database is an output channel like any other: secrets are scrubbed before they are written.
    store = redactingStore(
      new SqliteStore({ path: io.env.GLASSLOOP_DB || join(io.cwd, ".glassloop", "glassloop.db") }),
      redactorFor(io.env),
    );
  } catch (error) {
    if (needs.store) throw error;
    storeProblem = (error as Error).message;
  }
  // A resumed run goes on with the model and exactly the tools it was started with (its record).
  const resumed = needs.resume === undefined ? undefined : await (store as Store).loadRun(needs.resume);
  // Said before the model is resolved: a finished run needs no key, and a missing one is not why
  // it cannot go on.
  if (resumed && !RESUMABLE.has(resumed.status)) {
    throw new RunNotResumableError(
      (store as Store).location,
      resumed.runId,
      resumed.status,
      `it already ended (${resumed.status}). Start a new run instead.`,
    );
  }
  const chosen = chooseTools(flags, config, io.cwd, resumed);
  const choice: ModelChoice =
    resumed && !flags.model
      ? { model: resumed.model, source: `the model run ${resumed.runId} started with` }
      : await selectModel({
          ...(flags.model && { flag: flags.model }),
          env: io.env,
          cwd: io.cwd,
          config,
          ...(path && { configPath: path }),
        }).catch(async (error: unknown) => {
          // Nothing configured: a terminal is asked whether to download a small local model.
          const offered =
            error instanceof NoModelError ? await offerLocalModel(io, flags.yes === true) : undefined;
          if (!offered) throw error;
          return offered;
        });
  const model = resolveModel(choice.model, io.env, modelOptions(config));
  // A replay reproduces a recording, so what the user did not choose comes from it: a recording of
  // `glassloop demo` runs with that example's agent, any other with the recorded instructions.
  const replayed =
    model instanceof ReplayModel && resumed === undefined ? recordedRequest(model, flags, config) : undefined;
  const demo = replayed?.demo;
  // The config's MCP servers (never a demo's): closed by `agent.close()`.
  const mcp =
    config.mcpServers && needs.mcp && !demo
      ? await connectMcpServers(config.mcpServers, needs.mcp)
      : undefined;
  const agent = demo
    ? demo.agent(model, { limits, ...(store && { store }) })
    : new Agent<undefined, unknown>({
        name: "glassloop",
        instructions:
          flags.instructions ?? config.instructions ?? replayed?.instructions ?? DEFAULT_INSTRUCTIONS,
        model,
        tools: chosen.tools,
        ...(mcp && { toolSources: mcp.sources }),
        toolSetup: chosen.setup,
        limits,
        ...(store && { store }),
      });
  // Every run is traced (redacted) unless asked not to, so `glassloop trace list|view` shows it.
  // A trace that cannot be written is never silent: a --trace the user named fails the command
  // before the run; the default one lets the run go on and says so.
  let traceProblem: string | undefined;
  const traceFailures: string[] = [];
  let tracer: TraceWriter | undefined;
  if (!flags["no-trace"]) {
    const target = flags.trace
      ? traceTarget(resolve(io.cwd, flags.trace), flags.trace.endsWith("/"))
      : ({ dir: join(io.cwd, DEFAULT_TRACE_DIR) } as const);
    const problem = unwritable(target);
    if (problem && flags.trace) throw new UsageError(`--trace ${problem}`);
    if (problem) traceProblem = problem;
    else
      tracer = new TraceWriter({
        ...target,
        redaction: { env: io.env },
        onError: (error, path) => traceFailures.push(`cannot write ${path}: ${error.message}`),
      });
  }
  return {
    agent,
    model,
    choice,
    config,
    toolNames: chosen.groups,
    allowNewTools: chosen.allowNewTools,
    ...(chosen.note && { toolNote: chosen.note }),
    ...(demo && {
      agentNote: `agent: the one of "glassloop demo ${demo.name}" (its instructions and tools), which made this recording`,
    }),
    ...(store && { store }),
    ...(storeProblem && { storeProblem }),
    ...(mcp && { mcp }),
    ...(tracer && { tracer }),
    ...(traceProblem && { traceProblem }),
    traceFailures,
  };
}

const RESUMABLE = new Set(["running", "awaiting_approval"]);

/**
 * What a replay takes from its recording when the user did not say: the demo example that made it
 * (when neither --instructions nor --tools is given), else the recorded instructions.
 */
function recordedRequest(
  model: ReplayModel,
  flags: AgentFlags,
  config: CliConfig,
): { demo?: DemoScenario; instructions?: string } {
  const first = model.exchanges[0] as ReplayModel["exchanges"][number];
  const request = canonicalFromBody(first.body, first.model);
  const chose = flags.instructions !== undefined || config.instructions !== undefined;
  const demo = chose || flags.tools !== undefined ? undefined : scenarioOfRequest(request);
  if (demo) return { demo };
  return chose || request.instructions === undefined ? {} : { instructions: request.instructions };
}

/** A directory (an existing one, or a path ending in `/`) gets `<dir>/<runId>.jsonl`; anything else is the file. */
function traceTarget(path: string, isDir: boolean): { dir: string } | { file: string } {
  if (isDir) return { dir: path };
  try {
    if (statSync(path).isDirectory()) return { dir: path };
  } catch {
    // Not there yet: a file to create.
  }
  return { file: path };
}

/** Why the trace target cannot be written, or undefined when it can (its directory is made here). */
function unwritable(target: { dir: string } | { file: string }): string | undefined {
  const dir = "dir" in target ? target.dir : dirname(target.file);
  const shown = "dir" in target ? target.dir : target.file;
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
    if ("file" in target && existsSync(target.file)) accessSync(target.file, constants.W_OK);
    return undefined;
  } catch (error) {
    return `cannot write the trace ${shown}: ${(error as Error).message}`;
  }
}

/** The config's `modelHttp` as the providers' `http` option. */
function modelOptions(config: CliConfig): ProviderOptions | undefined {
  if (!config.modelHttp) return undefined;
  const { maxRetries, ...bounds } = config.modelHttp;
  return { http: { ...bounds, ...(maxRetries !== undefined && { retry: { maxRetries } }) } };
}

function positive(text: string, flag: string, whole: boolean): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value))) {
    throw new UsageError(`${flag} must be a ${whole ? "whole " : ""}number above 0, got "${text}"`);
  }
  return value;
}
