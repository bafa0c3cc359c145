/**
 * One push notification: a POST of one stream event to a caller's webhook. The webhook is the
 * caller's word, so the address connected to is checked inside the connection's own DNS lookup
 * (no rebinding window), redirects are not followed, each try is bounded in time, the answer's
 * body is never read, and a failure is retried only when trying again can help (a network error,
 * a timeout, 429, 5xx), a bounded number of times.
 */
import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { BlockedAddressError, guardedLookup, isPrivateAddress } from "../../tools/builtin/net-guard.js";
import type { A2APushDelivery, A2APushOptions } from "./options.js";
import type { PushConfig } from "./push-store.js";

/** The content type of spec 1.0's JSON bodies. */
const A2A_JSON = "application/a2a+json";
const DEFAULT_TIMEOUT_MS = 5_000;
const DEFAULT_ATTEMPTS = 3;
const BACKOFF_MS = 200;

type Try =
  | { kind: "answer"; status: number }
  | { kind: "refused"; reason: string }
  | { kind: "error"; reason: string };

function postOnce(config: PushConfig, body: string, options: A2APushOptions): Promise<Try> {
  const url = new URL(config.url);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const allowPrivate = options.allowPrivate === true;
  // A literal address skips the lookup, so it is checked here.
  if (isIP(host) !== 0 && isPrivateAddress(host) && !allowPrivate)
    return Promise.resolve({ kind: "refused", reason: `${url.host} is a loopback or private address` });
  const client = url.protocol === "https:" ? https : http;
  const headers: Record<string, string> = {
    "content-type": A2A_JSON,
    "content-length": String(Buffer.byteLength(body)),
    "user-agent": "glassloop-a2a-push",
  };
  if (config.token) headers["x-a2a-notification-token"] = config.token;
  if (config.authentication)
    headers.authorization = `${config.authentication.scheme} ${config.authentication.credentials}`;
  return new Promise<Try>((resolve) => {
    const request = client.request(
      url,
      {
        method: "POST",
        headers,
        lookup: guardedLookup(() => allowPrivate),
        agent: false,
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      },
      (response) => {
        // The receiver's answer is its business: only the status is read.
        response.destroy();
        resolve({ kind: "answer", status: response.statusCode ?? 0 });
      },
    );
    const deadline = setTimeout(() => {
      request.destroy(new Error(`no answer within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`));
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    request.on("timeout", () => request.destroy(new Error("the connection went quiet")));
    request.on("error", (error) =>
      resolve(
        error instanceof BlockedAddressError
          ? { kind: "refused", reason: error.message }
          : { kind: "error", reason: error.message },
      ),
    );
    request.on("close", () => clearTimeout(deadline));
    request.end(body);
  });
}

/** POSTs `body` to the config's webhook, retrying what may succeed on a second try. */
export async function sendNotification(
  config: PushConfig,
  body: string,
  options: A2APushOptions,
  signal: AbortSignal,
): Promise<A2APushDelivery> {
  const base = { taskId: config.taskId, configId: config.id, host: new URL(config.url).host };
  const attempts = Math.max(1, options.attempts ?? DEFAULT_ATTEMPTS);
  let last: Try = { kind: "error", reason: "not sent" };
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (signal.aborted)
      return { outcome: "failed", ...base, attempts: attempt - 1, reason: "the server closed" };
    last = await postOnce(config, body, options);
    if (last.kind === "refused") return { outcome: "refused", ...base, reason: last.reason };
    if (last.kind === "answer") {
      const { status } = last;
      if (status >= 200 && status < 300) return { outcome: "delivered", ...base, status, attempts: attempt };
      if (status >= 300 && status < 400)
        return {
          outcome: "refused",
          ...base,
          reason: `the webhook answered ${status}: redirects are not followed`,
        };
      if (status !== 429 && status < 500)
        return {
          outcome: "failed",
          ...base,
          attempts: attempt,
          status,
          reason: `the webhook answered ${status}`,
        };
    }
    if (attempt < attempts) await pause(BACKOFF_MS * 2 ** (attempt - 1), signal);
  }
  return last.kind === "answer"
    ? {
        outcome: "failed",
        ...base,
        attempts,
        status: last.status,
        reason: `the webhook answered ${last.status}`,
      }
    : { outcome: "failed", ...base, attempts, reason: last.kind === "error" ? last.reason : "refused" };
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
