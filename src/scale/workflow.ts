import { Agent } from "../agent/agent.js";
import type { AgentConfigWithoutOutput, AgentStream, RunResult } from "../agent/agent-config.js";
import { ConfigError, RunError, runStatusOf } from "../core/errors.js";
import type { Redactor } from "../core/redact.js";
import { redactingJsonSink } from "../core/sink.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { Limits } from "../core/vocabulary/limits.js";
import type { FilePart, ImagePart, Message } from "../core/vocabulary/messages.js";
import type { RunStatus } from "../core/vocabulary/status.js";
import type { RunUsage } from "../core/vocabulary/usage.js";
import type { PendingApproval } from "../features/approval/approval.js";
import { ENVIRONMENT_DEFAULTS } from "../loop/environment/environment.js";
import type { RunHooks } from "../loop/hooks.js";
import { emptyUsage } from "../loop/usage.js";
import { resolveModel } from "../providers/resolve.js";
import { currentOwner } from "../store/owner.js";
import type { PostgresStore } from "../store/postgres/postgres-store.js";
import type { AgentFactory, AnyAgentConfig, WorkerModule } from "./agents.js";
import { ApprovalWaits } from "./approval-waits.js";
import { dbosToolHooks } from "./dbos-hooks.js";
import { durableModel } from "./durable-model.js";
import { EventLog } from "./events.js";
import { type JsonOutput, jsonOutput } from "./json-output.js";
import { QuestionWaits } from "./questions.js";
import { type Fence, RunSteps } from "./run-steps.js";
import type { ScaleDb } from "./scale-db.js";
import type { DbosModule } from "./sdk.js";
import { toolStarts } from "./tool-starts.js";

/** The registered name of the one workflow every run is. */
export const RUN_WORKFLOW = "glassloop.run";

/** What a client asks a worker to run. */
export interface RunRequest {
  /** The name the worker module gives the agent. */
  agent: string;
  input: string;
  /** A conversation in the Postgres store: its history is loaded, and this turn saved, at the end. */
  session?: string;
  /** Extra ceilings for this run, combined with the agent's own (the lower wins). */
  limits?: Limits;
  /**
   * Ask the model to stream, so the run's events carry its text as it comes (`text_delta`), as a
   * client that shows the answer live wants (the HTTP server does); default off.
   */
  stream?: boolean;
  /** Images sent with the input (the agent checks them again: type, size, url). */
  images?: ImagePart[];
  /** Documents sent with the input, after the images (checked again as any run's). */
  files?: FilePart[];
  /**
   * What a tool's question to the person does: `"wait"` (the default) pauses the run until
   * `client.answer`; `"fail"` fails the asking call with a message the model reads, for a client
   * that cannot show questions.
   */
  questions?: "wait" | "fail";
}

/** How a queued run ended, as its workflow returns it (JSON: any process can read it). */
export type QueuedRunResult =
  | { status: "ok"; output: unknown; finishedBy: string; messages: Message[]; usage: RunUsage }
  | {
      status: Exclude<RunStatus, "ok">;
      error: { code: string; message: string };
      messages: Message[];
      usage?: RunUsage;
    };

/** What the workflow needs from its worker. */
export interface WorkflowEnv {
  dbos: DbosModule;
  module: WorkerModule;
  db: ScaleDb;
  /** The run records' store, already redacting (`redactingStore`). */
  store: PostgresStore;
  /**
   * What every value leaving a run is scrubbed with: step outputs, the workflow's output, events.
   * The worker's environment (its API keys) and any secrets the worker was given.
   */
  scrubber: Redactor;
  executorId: string;
  fence: Fence;
  /** How long a run waits for an approval before the call counts as rejected. */
  approvalTimeoutSeconds: number;
}

/**
 * One run as a DBOS workflow whose id is the run id. DBOS replays it from the top after a crash:
 * every model call, tool call, session load and approval wait is a step, so the replay gets their
 * recorded results and continues where the dead worker stopped; the run's record at its end is
 * written so that writing it twice changes nothing. It returns its `QueuedRunResult` as JSON
 * text (json-output.ts: the transcript is not walked by DBOS's serializer); `ScaleClient.result`
 * parses it.
 */
export function runWorkflow(env: WorkflowEnv): (request: RunRequest) => Promise<JsonOutput> {
  const { DBOS } = env.dbos;
  return async function glassloopRun(request: RunRequest): Promise<JsonOutput> {
    const runId = DBOS.workflowID as string;
    const steps = new RunSteps(DBOS, runId, env.fence, env.scrubber);
    const events = new EventLog(env.db.pool, runId, env.executorId, env.scrubber);
    // DBOS records what the workflow returns (and any client reads it): a sink like the others,
    // scrubbed while it is serialized (no scrubbed copy of the transcript first).
    const output = redactingJsonSink("dbos workflow output", env.scrubber, jsonOutput);
    // Loaded at run time: any factory; what it returns is passed to `Agent`, which checks it.
    const factory = (env.module.agents as Record<string, AgentFactory>)[request.agent];
    if (!factory) {
      const known = Object.keys(env.module.agents).join(", ") || "none";
      return output.write(
        failed(
          "config",
          `This worker has no agent named ${JSON.stringify(request.agent)} (it has: ${known})`,
        ),
      );
    }
    const config = (await factory()) as AnyAgentConfig;
    const history =
      request.session === undefined
        ? undefined
        : await steps.step("session.load", () => env.store.lockSession(request.session as string, runId));
    const agent = new Agent(
      durableConfig(config, steps, env.scrubber) as AgentConfigWithoutOutput<unknown, unknown>,
    );
    const waits = new ApprovalWaits(steps, env.approvalTimeoutSeconds);
    const questions = new QuestionWaits(steps, env.approvalTimeoutSeconds, () => events.flushed());
    let outcome: QueuedRunResult;
    try {
      const options = {
        runId,
        ...(history && { history: history.messages }),
        ...(request.limits && { limits: request.limits }),
        ...(request.images?.length && { images: request.images }),
        ...(request.files?.length && { files: request.files }),
        onEvent: (event: AgentEvent) => events.record(steps.ops, event),
        hooks: {
          ...dbosToolHooks(steps, toolStarts(env.db.pool, runId, env.executorId)),
          // A tool's question waits here, like an approval, and the asking calls run again answered.
          ...(request.questions !== "fail" && {
            pauseForInput: (state, step, turn) => questions.wait(state, step, turn),
          }),
        } satisfies RunHooks,
        onApproval: (call: PendingApproval) => waits.decide(call),
      };
      const result =
        request.stream === true
          ? await drained(agent.stream(request.input, options))
          : await agent.run(request.input, options);
      outcome = {
        status: "ok",
        output: result.output,
        finishedBy: result.finishedBy,
        messages: result.messages,
        usage: result.usage,
      };
    } catch (error) {
      if (!(error instanceof RunError)) throw error;
      const status = runStatusOf(error);
      outcome = {
        status: status === "ok" ? "failed" : status,
        error: { code: error.code, message: error.message },
        messages: error.messages,
        usage: error.usage,
      };
    } finally {
      await agent.close();
    }
    // The run's record is idempotent by itself (recordEnd), so it is no DBOS step: a step would
    // cost every run seven more round trips only to spare a replay that rare write. It is
    // written, as a step would be, only while this worker holds its lease, and beside the last
    // events, which the workflow's end waits for (a client that saw the end has every event).
    await steps.held();
    await Promise.all([recordEnd(env.store, runId, request, config, history, outcome), events.flushed()]);
    return output.write(outcome);
  };
}

/** A stream's result once every event went by (they reach the run's `onEvent`; none is kept here). */
async function drained<T>(stream: AgentStream<T>): Promise<RunResult<T>> {
  for await (const _event of stream) {
    // Each event already went to `onEvent`.
  }
  return stream.result;
}

function failed(code: string, message: string): QueuedRunResult {
  return { status: "failed", error: { code, message }, messages: [] };
}

/** The agent's config with its model made durable (its tools are, by the run's hooks), and no store of its own. */
function durableConfig(config: AnyAgentConfig, steps: RunSteps, redactor: Redactor): AnyAgentConfig {
  if (config.toolSources !== undefined && config.toolSources.length > 0)
    throw new ConfigError(
      "An agent on a worker cannot have toolSources yet: their tool lists are read outside any step, so a replay could see other tools (docs/scale-out.md#limits)",
    );
  const { store: _store, ...rest } = config;
  const perTurn = config.environment?.maxToolCallsPerTurn ?? ENVIRONMENT_DEFAULTS.maxToolCallsPerTurn;
  return {
    ...rest,
    model: durableModel(resolveModel(config.model), steps, redactor),
    // Every call of a turn starts at once, in the model's order: the calls' step ids are then the
    // same on a replay, where cached steps finish in a different order than live ones did.
    environment: { ...config.environment, concurrency: perTurn },
  } as AnyAgentConfig;
}

/**
 * The run's record in the Postgres store (for `listRuns`, `loadRun`, the viewer) and the session's
 * new turn, written once at the end, whatever ran before, in one write (`recordEndedRun`: one
 * statement, or one transaction with a session). A replay that finds the record ended writes
 * nothing; one that finds it open (left by an execution of an earlier release, which wrote the
 * record and its end apart and crashed between them) only ends it.
 */
async function recordEnd(
  store: PostgresStore,
  runId: string,
  request: RunRequest,
  config: AnyAgentConfig,
  history: { sessionId: string; messages: Message[]; version: number } | undefined,
  outcome: QueuedRunResult,
): Promise<void> {
  const messages = outcome.messages;
  const offset = messages[0]?.role === "system" ? 1 : 0;
  const base = history ? history.messages.filter((m) => m.role !== "system").length : 0;
  // The messages the run started with: its system prompt, the session's history, the input.
  const start = Math.min(messages.length, offset + base + 1);
  const usage = outcome.usage ?? emptyUsage(false);
  const end =
    outcome.status === "ok"
      ? { status: "ok" as const, output: outcome.output }
      : {
          status: outcome.status === "awaiting_approval" ? ("failed" as const) : outcome.status,
          error: outcome.error,
        };
  const written = await store.recordEndedRun({
    runId,
    agent: config.name ?? request.agent,
    model: modelLabel(config.model),
    input: request.input,
    owner: currentOwner(),
    messages,
    usage,
    ...end,
    ...(history && {
      session: { sessionId: history.sessionId, offset, base, version: history.version },
    }),
  });
  if (written === "created") return;
  try {
    await store.finishRun(runId, { persisted: start, messages, usage, ...end });
  } catch (error) {
    // Ended by the execution that crashed right after writing it: nothing is left to do.
    if ((error as { code?: unknown }).code !== "run_ended") throw error;
  }
}

/** The model's name as the store keeps it: the string, the model's id, or a chain's ids. */
function modelLabel(model: AnyAgentConfig["model"] | string): string {
  if (typeof model === "string") return model;
  if ("id" in model) return model.id;
  return model.map(modelLabel).join(" → ");
}
