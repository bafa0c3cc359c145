/**
 * The A2A routes on serve's app: each agent's card (public: it says how to authenticate) at
 * `/a2a/<agent>/.well-known/agent-card.json`, the default agent's at `/.well-known/agent-card.json`,
 * and JSON-RPC at `POST /a2a/<agent>` in spec 1.0's method names and v0.3's. Calls take serve's
 * auth, rate limit and body cap, and reach only the caller's own tasks.
 */
import type { Hono } from "hono";
import { ServeConfigError, ServeRequestError } from "../../serve/errors.js";
import { PostgresServeLog } from "../../serve/postgres-serve-log.js";
import type { ServeContext, ServeEnv } from "../../serve/serve-context.js";
import type { ServeLog } from "../../serve/serve-log.js";
import { SqliteServeLog } from "../../serve/sqlite-serve-log.js";
import { RPC } from "../wire.js";
import { agentCard, baseOf, getExtendedCard } from "./card.js";
import { gateOf } from "./gate.js";
import { listTasks } from "./list-tasks.js";
import { type Call, cancelTask, getTask, sendMessage, subscribeToTask } from "./methods.js";
import type { A2AServeOptions } from "./options.js";
import { PostgresA2AStore } from "./postgres-a2a-store.js";
import { PushDispatcher, type PushRuntime } from "./push-dispatcher.js";
import { createConfig, deleteConfig, getConfig, listConfigs } from "./push-methods.js";
import { type A2APushStore, MemoryPushStore } from "./push-store.js";
import { restRoutes } from "./rest-routes.js";
import { A2ARequestError, envelope, errorResponse, type RpcId } from "./rpc.js";
import { SqliteA2AStore } from "./sqlite-a2a-store.js";
import { type A2ATaskHistory, MemoryTaskHistory } from "./task-history.js";

type Method = (call: Call, params: unknown) => Promise<Response>;

const METHODS: Record<string, { version: "1.0" | "0.3"; run: Method }> = {
  SendMessage: { version: "1.0", run: (c, p) => sendMessage(c, p, false) },
  SendStreamingMessage: { version: "1.0", run: (c, p) => sendMessage(c, p, true) },
  GetTask: { version: "1.0", run: getTask },
  CancelTask: { version: "1.0", run: cancelTask },
  SubscribeToTask: { version: "1.0", run: subscribeToTask },
  ListTasks: { version: "1.0", run: listTasks },
  GetExtendedAgentCard: { version: "1.0", run: getExtendedCard },
  CreateTaskPushNotificationConfig: { version: "1.0", run: createConfig },
  GetTaskPushNotificationConfig: { version: "1.0", run: getConfig },
  ListTaskPushNotificationConfigs: { version: "1.0", run: listConfigs },
  DeleteTaskPushNotificationConfig: { version: "1.0", run: deleteConfig },
  "message/send": { version: "0.3", run: (c, p) => sendMessage(c, p, false) },
  "message/stream": { version: "0.3", run: (c, p) => sendMessage(c, p, true) },
  "tasks/get": { version: "0.3", run: getTask },
  "tasks/cancel": { version: "0.3", run: cancelTask },
  "tasks/resubscribe": { version: "0.3", run: subscribeToTask },
  "agent/getAuthenticatedExtendedCard": { version: "0.3", run: getExtendedCard },
  "tasks/pushNotificationConfig/set": { version: "0.3", run: createConfig },
  "tasks/pushNotificationConfig/get": { version: "0.3", run: getConfig },
  "tasks/pushNotificationConfig/list": { version: "0.3", run: listConfigs },
  "tasks/pushNotificationConfig/delete": { version: "0.3", run: deleteConfig },
};

/** Histories and push configs live where the runs do: a serve log's SQLite file or Postgres schema. */
function keptBeside(log: ServeLog): (A2ATaskHistory & A2APushStore & { close(): void }) | undefined {
  if (log instanceof SqliteServeLog && log.location !== ":memory:") return new SqliteA2AStore(log.location);
  if (log instanceof PostgresServeLog) return new PostgresA2AStore(log.pg);
  return undefined;
}

/** Mounts the A2A routes on serve's app (`createHandler({ a2a })` calls this); `close` stops push notifications. */
export function a2aRoutes(
  app: Hono<ServeEnv>,
  ctx: ServeContext,
  options: A2AServeOptions = {},
): { close(): Promise<void> } {
  const fallback = options.defaultAgent ?? ctx.agents.names[0];
  if (fallback === undefined || !ctx.agents.has(fallback))
    throw new ServeConfigError(
      `a2a.defaultAgent ${JSON.stringify(options.defaultAgent)} is not a served agent`,
    );
  const gate = gateOf(ctx);
  const kept = keptBeside(ctx.log);
  const history = options.history ?? kept ?? new MemoryTaskHistory();
  const push: PushRuntime | undefined = options.push && {
    options: options.push,
    dispatcher: new PushDispatcher(ctx, options.push, options.push.store ?? kept ?? new MemoryPushStore()),
  };
  // Tasks still going when the last process stopped keep their webhooks.
  push?.dispatcher.followPending();
  const card = (agent: string, request: Request) =>
    Response.json(agentCard(agent, baseOf(request, options), ctx.auth.open, options), {
      headers: { "cache-control": "public, max-age=300" },
    });

  app.get("/.well-known/agent-card.json", (c) => card(fallback, c.req.raw));
  app.get("/a2a/:agent/.well-known/agent-card.json", (c) => {
    const agent = c.req.param("agent");
    if (!ctx.agents.has(agent))
      throw new ServeRequestError(404, "unknown_agent", `no agent named ${JSON.stringify(agent)}`);
    return card(agent, c.req.raw);
  });

  app.post("/a2a/:agent", async (c) => {
    let id: RpcId = null;
    try {
      const agent = c.req.param("agent");
      const principal = await gate.admit(c.req.raw, agent);
      const body = await gate.body(c.req.raw);
      const parsed = envelope.safeParse(body);
      if (!parsed.success) throw new A2ARequestError(RPC.invalidRequest, "not a JSON-RPC 2.0 request");
      id = parsed.data.id ?? null;
      const method = METHODS[parsed.data.method];
      if (!method) throw new A2ARequestError(RPC.methodNotFound, `method not found: ${parsed.data.method}`);
      const call: Call = {
        ctx,
        options,
        agent,
        principal,
        version: method.version,
        id,
        binding: "jsonrpc",
        request: c.req.raw,
        history,
        ...(push && { push }),
      };
      return await method.run(call, parsed.data.params);
    } catch (error) {
      return errorResponse(id, error);
    }
  });
  restRoutes(app, { ctx, options, gate, history, ...(push && { push }) });
  return {
    close: async () => {
      await push?.dispatcher.close();
      kept?.close();
    },
  };
}
