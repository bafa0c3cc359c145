/**
 * The push-notification config methods, each on the caller's own task only: create (v0.3: set),
 * get, list and delete, in spec 1.0's spelling and v0.3's. A server without `push` answers each
 * with `-32003` (push notifications not supported).
 */
import { protoPushConfig } from "../v03-proto.js";
import { RPC } from "../wire.js";
import { type Call, lastSeqOf, ownRun, parse } from "./methods.js";
import {
  configOf,
  configRef,
  configWire,
  createParams,
  listRef,
  refOf,
  setParamsV03,
} from "./push-config.js";
import { addConfig, type PushRuntime } from "./push-dispatcher.js";
import type { PushConfig } from "./push-store.js";
import { A2ARequestError, resultResponse, rpcError } from "./rpc.js";

/** A config as the caller reads it: v0.3 over HTTP+JSON names it by its resource path. */
function configOut(call: Call, config: PushConfig): unknown {
  const wire = configWire(config, call.version);
  return call.version === "0.3" && call.binding === "rest" ? protoPushConfig(wire as never) : wire;
}

function pushOf(call: Call): PushRuntime {
  if (!call.push) throw new A2ARequestError(RPC.pushNotSupported, "push notifications are not supported");
  return call.push;
}

/** `CreateTaskPushNotificationConfig` / `tasks/pushNotificationConfig/set`. */
export async function createConfig(call: Call, params: unknown): Promise<Response> {
  const push = pushOf(call);
  const { taskId, fields } =
    call.version === "1.0"
      ? (() => {
          const p = parse(createParams, params);
          return { taskId: p.taskId, fields: p };
        })()
      : (() => {
          const p = parse(setParamsV03, params);
          return { taskId: p.taskId, fields: p.pushNotificationConfig };
        })();
  const run = await ownRun(call, taskId);
  const config = configOf(call.version, run.runId, fields, push.options);
  await addConfig(call.principal, push, run, config, lastSeqOf(call.ctx, run));
  return resultResponse(call, configOut(call, config));
}

/** `GetTaskPushNotificationConfig` / `tasks/pushNotificationConfig/get`. */
export async function getConfig(call: Call, params: unknown): Promise<Response> {
  const push = pushOf(call);
  const ref = refOf(call.version, parse(configRef, params));
  await ownRun(call, ref.taskId);
  const config = ref.id
    ? await push.dispatcher.store.get(call.principal, ref.taskId, ref.id)
    : // v0.3 may name the task alone: its first config.
      (await push.dispatcher.store.list(call.principal, ref.taskId))[0];
  if (!config) throw rpcError.invalidParams(`task ${ref.taskId} has no such push notification config`);
  return resultResponse(call, configOut(call, config));
}

/** `ListTaskPushNotificationConfigs` / `tasks/pushNotificationConfig/list`. */
export async function listConfigs(call: Call, params: unknown): Promise<Response> {
  const push = pushOf(call);
  const ref = parse(listRef, params);
  const taskId = call.version === "1.0" ? ref.taskId : ref.id;
  if (!taskId) throw rpcError.invalidParams("the task's id is required");
  await ownRun(call, taskId);
  const configs = (await push.dispatcher.store.list(call.principal, taskId)).map((c) => configOut(call, c));
  const listed = call.version === "1.0" || call.binding === "rest";
  return resultResponse(call, listed ? { configs, nextPageToken: "" } : configs);
}

/** `DeleteTaskPushNotificationConfig` / `tasks/pushNotificationConfig/delete`. */
export async function deleteConfig(call: Call, params: unknown): Promise<Response> {
  const push = pushOf(call);
  const ref = refOf(call.version, parse(configRef, params));
  if (!ref.id) throw rpcError.invalidParams("the config's id is required");
  await ownRun(call, ref.taskId);
  const deleted = await push.dispatcher.store.delete(call.principal, ref.taskId, ref.id);
  if (!deleted) throw rpcError.invalidParams(`task ${ref.taskId} has no such push notification config`);
  return resultResponse(call, call.version === "1.0" ? {} : null);
}
