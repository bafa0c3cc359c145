import type { RequestOptions } from "node:http";
import { createRequire } from "node:module";
import { urlToHttpOptions } from "node:url";

// Where one POST over node:http(s) goes: the scheme's request function and keep-alive pool, and
// the request's options and header pairs, parsed and merged once per URL and header set.

// node:http and node:https (with tls) are loaded on the first call that needs them, not when
// glassloop is imported: they were a large share of its import time, and a program that never
// calls a model over HTTP needs neither.
const load = createRequire(import.meta.url);
let http: typeof import("node:http") | undefined;
let https: typeof import("node:https") | undefined;

/** The request function and keep-alive pool of a scheme, loaded on first use. */
function clientOf(secure: boolean): {
  request: typeof import("node:http").request;
  agent: import("node:http").Agent;
} {
  // One keep-alive pool per scheme for every model call (fetch keeps one too). Idle sockets do not
  // hold the process open, and the agent honours a server's `Keep-Alive: timeout=` hint.
  if (secure) {
    https ??= load("node:https") as typeof import("node:https");
    httpsAgent ??= new https.Agent({ keepAlive: true });
    return { request: https.request, agent: httpsAgent };
  }
  http ??= load("node:http") as typeof import("node:http");
  httpAgent ??= new http.Agent({ keepAlive: true });
  return { request: http.request, agent: httpAgent };
}
let httpAgent: import("node:http").Agent | undefined;
let httpsAgent: import("node:https").Agent | undefined;

// What `fetch` would have added; the caller's own headers of these names win.
const DEFAULT_HEADERS = { "accept-encoding": "gzip, deflate", "user-agent": "node" };

/** Where and how one request goes: node's options, its header pairs and the request function of its scheme. */
export interface Target {
  /** Everything but the headers. */
  options: RequestOptions;
  /**
   * The request's headers as name/value pairs, `host` included: a list skips node's per-header
   * bookkeeping (`setHeader` for each, an object of them), and is checked as it is written.
   */
  pairs: string[];
  request: typeof import("node:http").request;
}

/**
 * The request options per URL and header set: a model sends every call to the same URL with the
 * same headers object, so both are parsed and merged once. Bounded: more distinct URLs than this
 * start the cache over; a header set is remembered only as long as its object lives.
 */
const parsed = new Map<string, { base: Target; byHeaders: WeakMap<object, Target> }>();
const MAX_PARSED = 64;

/** The request target for `url` with `headers` (over fetch's defaults), parsed once per URL and header set. */
export function requestTarget(url: string, headers: Record<string, string>): Target {
  let entry = parsed.get(url);
  if (entry === undefined) {
    const parsedUrl = new URL(url);
    const { protocol, hostname, port, path } = urlToHttpOptions(parsedUrl);
    const { request, agent } = clientOf(protocol === "https:");
    entry = {
      // `host` as node writes it: brackets around an IPv6 address, no port when it is the default.
      base: {
        options: { protocol, hostname, port, path, agent, method: "POST" },
        pairs: ["host", parsedUrl.host],
        request,
      },
      byHeaders: new WeakMap(),
    };
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(url, entry);
  }
  let target = entry.byHeaders.get(headers);
  if (target === undefined) {
    const { base } = entry;
    // By name in any letter case, the caller's last: what `setHeader` for each would have sent.
    const merged = new Map<string, string>();
    for (const layer of [DEFAULT_HEADERS, headers])
      for (const [name, value] of Object.entries(layer)) merged.set(name.toLowerCase(), value);
    merged.delete("content-length");
    const pairs = ["host", merged.get("host") ?? (base.pairs[1] as string)];
    merged.delete("host");
    for (const [name, value] of merged) pairs.push(name, value);
    target = { options: base.options, pairs, request: base.request };
    entry.byHeaders.set(headers, target);
  }
  return target;
}
