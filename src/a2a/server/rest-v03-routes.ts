/**
 * v0.3's HTTP+JSON binding, for older clients: the same methods under `/a2a/<agent>/v1/...`
 * (`message:send`, `message:stream`, `tasks/<id>`, `:cancel`, `:subscribe`, the push configs, and
 * `card` for the extended card), read and answered in v0.3's proto JSON (`v03-proto.ts`). v0.3
 * has no `ListTasks` over HTTP+JSON. The calls pass the same gate and reach only the caller's tasks.
 */
import { pushFieldsFromProto, sendParamsFromProto } from "../v03-proto.js";
import { getExtendedCard } from "./card.js";
import type { Gate } from "./gate.js";
import { type Call, cancelTask, getTask, sendMessage, subscribeToTask } from "./methods.js";
import { createConfig, deleteConfig, getConfig, listConfigs } from "./push-methods.js";

type Handler = (call: Call, request: Request) => Promise<Response>;

/** The v0.3 route a path (after `v1/`) and verb name; undefined when none does. */
export function routeOfV03(
  method: string,
  path: readonly string[],
  gate: Gate,
  queryOf: (r: Request) => Record<string, unknown>,
): Handler | undefined {
  const json = (run: (call: Call, body: unknown) => Promise<Response>) => async (call: Call, r: Request) =>
    run(call, await gate.body(r));
  const [first, second, third, fourth] = path;
  if (path.length === 1 && method === "GET" && first === "card") return (c) => getExtendedCard(c);
  if (path.length === 1 && method === "POST" && first === "message:send")
    return json((c, b) => sendMessage(c, sendParamsFromProto(b), false));
  if (path.length === 1 && method === "POST" && first === "message:stream")
    return json((c, b) => sendMessage(c, sendParamsFromProto(b), true));
  if (first !== "tasks" || second === undefined) return undefined;
  if (path.length === 2) {
    const colon = second.lastIndexOf(":");
    const verb = colon > 0 ? second.slice(colon + 1) : undefined;
    const id = verb ? second.slice(0, colon) : second;
    if (verb === undefined && method === "GET") return (c, r) => getTask(c, { id, ...historyOf(queryOf(r)) });
    if (verb === "cancel" && method === "POST") return (c) => cancelTask(c, { id });
    if (verb === "subscribe" && (method === "POST" || method === "GET"))
      return (c) => subscribeToTask(c, { id });
    return undefined;
  }
  if (third !== "pushNotificationConfigs") return undefined;
  if (path.length === 3 && method === "POST")
    return json((c, b) => {
      const body = typeof b === "object" && b !== null ? (b as Record<string, unknown>) : {};
      const fields = body.pushNotificationConfig ?? body.push_notification_config;
      return createConfig(c, { taskId: second, pushNotificationConfig: pushFieldsFromProto(fields) });
    });
  if (path.length === 3 && method === "GET") return (c) => listConfigs(c, { id: second });
  if (path.length === 4 && method === "GET")
    return (c) => getConfig(c, { id: second, pushNotificationConfigId: fourth });
  if (path.length === 4 && method === "DELETE")
    return async (c) => {
      await deleteConfig(c, { id: second, pushNotificationConfigId: fourth });
      return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
    };
  return undefined;
}

/** `historyLength` (or `history_length`) from the query; proto JSON's 0 means "not set". */
function historyOf(query: Record<string, unknown>): { historyLength?: unknown } {
  const value = query.historyLength ?? query.history_length;
  if (value === undefined || value === 0) return {};
  return { historyLength: typeof value === "string" && /^\d{1,6}$/.test(value) ? Number(value) : value };
}
