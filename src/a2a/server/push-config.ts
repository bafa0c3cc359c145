/**
 * A caller's push-notification config: where the server POSTs a task's updates, and what it sends
 * there to be recognised. The webhook URL is the caller's word, so it is checked before it is
 * stored (http or https, no user info, the allow-list when one is set, no private or loopback
 * literal address unless allowed) and again when each notification goes out (`push-sender.ts`
 * checks the address it connects to).
 */
import { randomUUID } from "node:crypto";
import { isIP } from "node:net";
import { z } from "zod";
import { urlAllowedBy } from "../../features/guardrails/guards/url-allow-list.js";
import { isPrivateAddress } from "../../tools/builtin/net-guard.js";
import { pushFields } from "../schemas.js";
import type { A2APushOptions } from "./options.js";
import type { PushConfig } from "./push-store.js";
import { rpcError } from "./rpc.js";

const ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const HEADER_SAFE = /^[\x20-\x7e]*$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9-]{0,63}$/;

const configFields = pushFields.shape;

/** `CreateTaskPushNotificationConfig` params (1.0: the config itself, with its task id). */
export const createParams = z.looseObject({ taskId: z.string().min(1).max(200), ...configFields });
/** `tasks/pushNotificationConfig/set` params (v0.3: the config nested). */
export const setParamsV03 = z.looseObject({
  taskId: z.string().min(1).max(200),
  pushNotificationConfig: z.looseObject(configFields),
});
/** Get and delete (1.0: `taskId` + `id`; v0.3: `id` is the task's, `pushNotificationConfigId` the config's). */
export const configRef = z.looseObject({
  taskId: z.string().max(200).optional(),
  id: z.string().max(200).optional(),
  pushNotificationConfigId: z.string().max(128).optional(),
});
/** List (1.0: `taskId`; v0.3: `id`). */
export const listRef = z.looseObject({
  taskId: z.string().max(200).optional(),
  id: z.string().max(200).optional(),
});

/** The task and config ids a get or delete names, in either spelling. */
export function refOf(
  version: "1.0" | "0.3",
  ref: z.infer<typeof configRef>,
): { taskId: string; id?: string } {
  const taskId = version === "1.0" ? ref.taskId : ref.id;
  const id = version === "1.0" ? ref.id : ref.pushNotificationConfigId;
  if (!taskId)
    throw rpcError.invalidParams(version === "1.0" ? "taskId is required" : "id (the task's) is required");
  return { taskId, ...(id && { id }) };
}

/** Whether a webhook URL may be stored under `options` (the address is checked again at send time). */
export function webhookRefusal(url: string, options: A2APushOptions): string | undefined {
  if (!URL.canParse(url)) return "the webhook URL is not a URL";
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    return "the webhook URL must be http or https";
  if (parsed.username || parsed.password) return "the webhook URL must not carry a user name or password";
  if (options.allow) {
    if (!urlAllowedBy(options.allow)(url))
      return `the webhook ${parsed.host} is not on this server's allow-list`;
  } else if (parsed.protocol !== "https:")
    return "the webhook URL must be https (or on the server's allow-list)";
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) !== 0 && isPrivateAddress(host) && options.allowPrivate !== true)
    return `the webhook ${parsed.host} is a loopback or private address, which this server does not call`;
  return undefined;
}

/** A config as the caller sent it, checked; its id is the caller's or a new one. */
export function configOf(
  version: "1.0" | "0.3",
  taskId: string,
  fields: z.infer<typeof pushFields>,
  options: A2APushOptions,
): PushConfig {
  const refused = webhookRefusal(fields.url, options);
  if (refused) throw rpcError.invalidParams(refused);
  const id = fields.id || randomUUID();
  if (!ID.test(id)) throw rpcError.invalidParams("the config id must match [A-Za-z0-9_.:-]{1,128}");
  if (fields.token !== undefined && !HEADER_SAFE.test(fields.token))
    throw rpcError.invalidParams("the token must be printable ASCII (it is sent in a header)");
  const config: PushConfig = { id, taskId, url: fields.url, version };
  if (fields.token) config.token = fields.token;
  const auth = fields.authentication;
  const scheme = auth?.scheme ?? auth?.schemes?.[0];
  if (scheme && auth?.credentials) {
    if (!SCHEME.test(scheme) || !HEADER_SAFE.test(auth.credentials))
      throw rpcError.invalidParams("authentication must be a scheme name and printable ASCII credentials");
    config.authentication = { scheme, credentials: auth.credentials };
  }
  return config;
}

/** A config as its caller reads it back, in the caller's spelling. */
export function configWire(config: PushConfig, version: "1.0" | "0.3"): Record<string, unknown> {
  const fields = {
    id: config.id,
    url: config.url,
    ...(config.token && { token: config.token }),
  };
  if (version === "1.0")
    return {
      taskId: config.taskId,
      ...fields,
      ...(config.authentication && { authentication: config.authentication }),
    };
  return {
    taskId: config.taskId,
    pushNotificationConfig: {
      ...fields,
      ...(config.authentication && {
        authentication: {
          schemes: [config.authentication.scheme],
          credentials: config.authentication.credentials,
        },
      }),
    },
  };
}
