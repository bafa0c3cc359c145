/**
 * Spec 1.0's HTTP+JSON binding under each agent's URL (`/a2a/<agent>/...`, and v0.3's under
 * `/a2a/<agent>/v1/...`: `rest-v03-routes.ts`): the same methods as
 * JSON-RPC, named by path and verb, answering bare JSON (streams: one bare event per SSE `data`)
 * and errors as `{ error: { code, status, message, details: [ErrorInfo] } }`. The calls pass the
 * same gate (credentials, rate, body cap) and reach only the caller's own tasks.
 */
import type { Hono } from "hono";
import { ServeRequestError } from "../../serve/errors.js";
import type { ServeContext, ServeEnv } from "../../serve/serve-context.js";
import { RPC } from "../wire.js";
import { getExtendedCard } from "./card.js";
import type { Gate } from "./gate.js";
import { listTasks } from "./list-tasks.js";
import { type Call, cancelTask, getTask, sendMessage, subscribeToTask } from "./methods.js";
import type { A2AServeOptions } from "./options.js";
import type { PushRuntime } from "./push-dispatcher.js";
import { createConfig, deleteConfig, getConfig, listConfigs } from "./push-methods.js";
import { routeOfV03 } from "./rest-v03-routes.js";
import { A2ARequestError, fromServeError } from "./rpc.js";
import type { A2ATaskHistory } from "./task-history.js";

type Handler = (call: Call, request: Request) => Promise<Response>;

/** The route a path and verb name, with the ids in the path; undefined when none does. */
function routeOf(method: string, path: readonly string[], gate: Gate): Handler | undefined {
  const json = (run: (call: Call, params: unknown) => Promise<Response>) => async (call: Call, r: Request) =>
    run(call, await gate.body(r));
  const [first, second, third, fourth] = path;
  if (path.length === 1 && method === "POST" && first === "message:send")
    return json((c, p) => sendMessage(c, p, false));
  if (path.length === 1 && method === "POST" && first === "message:stream")
    return json((c, p) => sendMessage(c, p, true));
  if (path.length === 1 && method === "GET" && first === "extendedAgentCard")
    return (c) => getExtendedCard(c);
  if (first !== "tasks") return undefined;
  if (path.length === 1 && method === "GET") return (c, r) => listTasks(c, queryOf(r));
  if (second === undefined) return undefined;
  if (path.length === 2) {
    const colon = second.lastIndexOf(":");
    const verb = colon > 0 ? second.slice(colon + 1) : undefined;
    const id = verb ? second.slice(0, colon) : second;
    if (verb === undefined && method === "GET") return (c, r) => getTask(c, { id, ...queryOf(r) });
    if (verb === "cancel" && method === "POST") return (c) => cancelTask(c, { id });
    if (verb === "subscribe" && (method === "POST" || method === "GET"))
      return (c) => subscribeToTask(c, { id });
    return undefined;
  }
  if (third !== "pushNotificationConfigs") return undefined;
  if (path.length === 3 && method === "POST")
    return json((c, p) =>
      createConfig(c, { ...(typeof p === "object" && p !== null ? p : {}), taskId: second }),
    );
  if (path.length === 3 && method === "GET") return (c) => listConfigs(c, { taskId: second });
  if (path.length === 4 && method === "GET") return (c) => getConfig(c, { taskId: second, id: fourth });
  if (path.length === 4 && method === "DELETE") return (c) => deleteConfig(c, { taskId: second, id: fourth });
  return undefined;
}

/** Query parameters as the methods' params: numbers and booleans read as such. */
function queryOf(request: Request): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URL(request.url).searchParams) {
    if (key === "pageSize" || key === "historyLength")
      out[key] = /^\d{1,6}$/.test(value) ? Number(value) : value;
    else if (key === "includeArtifacts")
      out[key] = value === "true" ? true : value === "false" ? false : value;
    else out[key] = value;
  }
  return out;
}

/** Mounts the HTTP+JSON routes of every served agent. */
export function restRoutes(
  app: Hono<ServeEnv>,
  shared: {
    ctx: ServeContext;
    options: A2AServeOptions;
    gate: Gate;
    history: A2ATaskHistory;
    push?: PushRuntime;
  },
): void {
  const { ctx, options, gate, history, push } = shared;
  app.on(["GET", "POST", "DELETE"], "/a2a/:agent/*", async (c) => {
    let legacy = false;
    try {
      const agent = c.req.param("agent");
      const prefix = `/a2a/${encodeURIComponent(agent)}/`;
      const url = new URL(c.req.url);
      const rest = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : "";
      const path = rest.split("/").map((p) => decodeURIComponent(p));
      legacy = path[0] === "v1";
      const route = legacy
        ? routeOfV03(c.req.method, path.slice(1), gate, queryOf)
        : routeOf(c.req.method, path, gate);
      const principal = await gate.admit(c.req.raw, agent);
      if (!route)
        throw new A2ARequestError(RPC.methodNotFound, `no A2A route ${c.req.method} /${rest}`, {
          httpStatus: 404,
        });
      const call: Call = {
        ctx,
        options,
        agent,
        principal,
        version: legacy ? "0.3" : "1.0",
        id: null,
        binding: "rest",
        request: c.req.raw,
        history,
        ...(push && { push }),
      };
      return await route(call, c.req.raw);
    } catch (error) {
      return restError(error, legacy);
    }
  });
}

/** An A2A error code as HTTP+JSON puts it: the HTTP status, the status name, the ErrorInfo reason. */
const REST_OF: Record<number, [number, string, string | undefined]> = {
  [RPC.taskNotFound]: [404, "NOT_FOUND", "TASK_NOT_FOUND"],
  [RPC.taskNotCancelable]: [400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"],
  [RPC.pushNotSupported]: [400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED"],
  [RPC.unsupportedOperation]: [400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"],
  [RPC.contentTypeNotSupported]: [400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"],
  [RPC.extendedCardNotConfigured]: [400, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"],
  [RPC.invalidParams]: [400, "INVALID_ARGUMENT", "INVALID_PARAMS"],
  [RPC.invalidRequest]: [400, "INVALID_ARGUMENT", "INVALID_PARAMS"],
  [RPC.parseError]: [400, "INVALID_ARGUMENT", "INVALID_PARAMS"],
  [RPC.methodNotFound]: [404, "NOT_FOUND", undefined],
};
const STATUS_NAME: Record<number, string> = {
  401: "UNAUTHENTICATED",
  404: "NOT_FOUND",
  413: "INVALID_ARGUMENT",
  415: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
};

/**
 * A refusal as HTTP+JSON writes it: 1.0's `{ error: { code, status, message, details } }`, or
 * v0.3's `{ code, message, data }` with the JSON-RPC code (`legacy`); the HTTP status is the same.
 */
function restError(error: unknown, legacy: boolean): Response {
  const known =
    error instanceof A2ARequestError
      ? error
      : error instanceof ServeRequestError
        ? fromServeError(error)
        : undefined;
  if (!known) console.error("glassloop a2a:", error);
  const refusal = known ?? new A2ARequestError(RPC.internal, "the server failed to answer this request");
  const [mapped, mappedName, reason] = REST_OF[refusal.rpcCode] ?? [500, "INTERNAL", undefined];
  const status = refusal.httpStatus !== 200 ? refusal.httpStatus : mapped;
  const name = refusal.httpStatus !== 200 ? (STATUS_NAME[status] ?? mappedName) : mappedName;
  const headers = { "cache-control": "no-store", ...refusal.headers };
  if (legacy) {
    const body = {
      code: refusal.rpcCode,
      message: refusal.message,
      ...(refusal.data !== undefined && { data: refusal.data }),
    };
    return Response.json(body, { status, headers });
  }
  const body = {
    error: {
      code: status,
      status: name,
      message: refusal.message,
      ...(reason && {
        details: [
          { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "a2a-protocol.org" },
        ],
      }),
    },
  };
  return Response.json(body, { status, headers });
}
