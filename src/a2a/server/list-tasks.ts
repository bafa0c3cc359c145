/**
 * `ListTasks` (spec 1.0): a page of the caller's own tasks of this agent, most recently updated
 * first, filtered by context, state and status time. The page token is opaque to the caller: the
 * last task of the page it continues, so a page never repeats or skips a task that did not move.
 */
import type { ServeRunStatus } from "../../serve/serve-log.js";
import { listParams } from "../schemas.js";
import type { Task, TaskState } from "../wire.js";
import { type Call, currentTask, parse } from "./methods.js";
import { resultResponse, rpcError } from "./rpc.js";

const DEFAULT_PAGE_SIZE = 50;
const NO_STATE = new Set(["TASK_STATE_UNSPECIFIED", "UNRECOGNIZED"]);

/** The run statuses a task state can come from (the state itself is read from the run's log). */
const STATUSES_OF_STATE: Record<TaskState, readonly ServeRunStatus[]> = {
  TASK_STATE_SUBMITTED: ["running"],
  TASK_STATE_WORKING: ["running"],
  TASK_STATE_INPUT_REQUIRED: ["awaiting_approval"],
  TASK_STATE_AUTH_REQUIRED: [],
  TASK_STATE_COMPLETED: ["ok"],
  TASK_STATE_FAILED: ["failed", "budget_exceeded", "interrupted"],
  TASK_STATE_CANCELED: ["aborted"],
  TASK_STATE_REJECTED: [],
};

function isState(value: string): value is TaskState {
  return Object.hasOwn(STATUSES_OF_STATE, value);
}

/** The token of the page after `task`: where its run stands in the order. */
function tokenOf(run: { updatedAt: number; runId: string }): string {
  return Buffer.from(JSON.stringify([run.updatedAt, run.runId])).toString("base64url");
}

function cursorOf(token: string): { updatedAt: number; runId: string } {
  try {
    const value = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      Number.isSafeInteger(value[0]) &&
      typeof value[1] === "string"
    )
      return { updatedAt: value[0] as number, runId: value[1] };
  } catch {
    // A token that does not decode is refused below, like one that decodes to anything else.
  }
  throw rpcError.invalidParams("pageToken is not one this server gave");
}

/** `ListTasks`. */
export async function listTasks(call: Call, params: unknown): Promise<Response> {
  const query = parse(listParams, params ?? {});
  let state: TaskState | undefined;
  // No filter: absent, the enum's zero, or what @a2a-js/sdk 1.3 sends for a status left unset.
  if (query.status !== undefined && !NO_STATE.has(query.status)) {
    if (!isState(query.status))
      throw rpcError.invalidParams(`unknown task state ${JSON.stringify(query.status)}`);
    state = query.status;
  }
  let since: number | undefined;
  if (query.statusTimestampAfter !== undefined) {
    since = Date.parse(query.statusTimestampAfter);
    if (Number.isNaN(since)) throw rpcError.invalidParams("statusTimestampAfter must be an ISO 8601 time");
  }
  const pageSize = query.pageSize ?? DEFAULT_PAGE_SIZE;
  const { runs, total } = await call.ctx.log.listRuns({
    principal: call.principal,
    agent: call.agent,
    ...(query.contextId && { chatId: query.contextId }),
    ...(state && { statuses: STATUSES_OF_STATE[state] }),
    ...(since !== undefined && { updatedSince: since }),
    ...(query.pageToken && { after: cursorOf(query.pageToken) }),
    limit: pageSize + 1,
  });
  const page = runs.slice(0, pageSize);
  const tasks: Task[] = [];
  for (const run of page) {
    const task = await currentTask(call, run, query.historyLength);
    // The record's status can lag its log by a moment: the log's state is the one a filter means.
    if (state && task.status.state !== state) continue;
    if (query.includeArtifacts !== true) delete task.artifacts;
    tasks.push(task);
  }
  const last = page.at(-1);
  return resultResponse(call, {
    tasks,
    nextPageToken: runs.length > pageSize && last ? tokenOf(last) : "",
    pageSize,
    totalSize: total,
  });
}
