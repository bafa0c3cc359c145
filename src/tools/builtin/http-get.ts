import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { z } from "zod";
import { ToolError } from "../../core/errors.js";
import { READ_CAPS } from "../../core/read-caps.js";
import { type Tool, tool } from "../tool.js";
import { BlockedAddressError, guardedLookup, isPrivateAddress, type Resolver } from "./net-guard.js";

/** Options of the `http_get` tool. */
export interface HttpGetOptions {
  /** Allow loopback, private and link-local addresses everywhere (default false). */
  allowPrivateNetworks?: boolean;
  /** Hosts (`name` or `name:port`) that may resolve to private addresses, e.g. `localhost:8080`. */
  allowedHosts?: readonly string[];
  /** Most body bytes read (default 100,000); the rest is cut with a marker. */
  maxBytes?: number;
  /** Whole request time, redirects included (default 10,000 ms). */
  timeoutMs?: number;
  /** Redirects followed (default 5); each hop is checked like the first. */
  maxRedirects?: number;
  /** DNS resolution (tests pass their own). */
  resolver?: Resolver;
}

/** What `http_get` returns to the model. */
export interface HttpGetResult {
  url: string;
  status: number;
  contentType: string;
  body: string;
  truncated?: true;
}

const DEFAULTS = { maxBytes: READ_CAPS.httpTool, timeoutMs: 10_000, maxRedirects: 5 };
const TEXT_TYPE = /^(text\/|application\/(json|xml|javascript|x-ndjson|[\w.+-]+\+(json|xml))\b)/i;

const input = z.object({ url: z.string().describe("An http:// or https:// URL") });

/** The `http_get` tool: GET only, text or JSON, size and time caps, private addresses refused. */
export function httpGetTool(
  options: HttpGetOptions = {},
): Tool<z.output<typeof input>, unknown, HttpGetResult> {
  const settings = { ...DEFAULTS, ...options };
  return tool({
    name: "http_get",
    description:
      "Fetches a public web page or API over HTTP GET and returns its text or JSON (size and time limited).",
    input,
    idempotent: true,
    // The tool enforces its own time cap (redirects included); the environment's must not be shorter.
    timeoutMs: settings.timeoutMs + 1_000,
    run: ({ url }, { signal }) => httpGet(url, settings, signal),
  });
}

async function httpGet(
  start: string,
  settings: typeof DEFAULTS & HttpGetOptions,
  signal: AbortSignal,
): Promise<HttpGetResult> {
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  const combined = AbortSignal.any([signal, deadline]);
  let url = parseUrl(start);
  for (let hop = 0; ; hop++) {
    const allowed = isAllowed(url, settings);
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) && isPrivateAddress(host) && !allowed) {
      throw new ToolError(`Refused: ${url.host} is a loopback, private or link-local address (not allowed)`);
    }
    const lookup = guardedLookup(() => allowed, settings.resolver);
    let answer: Answer;
    try {
      answer = await getOnce(url, lookup, settings.maxBytes, combined);
    } catch (error) {
      if (signal.aborted) throw error;
      if (deadline.aborted)
        throw new ToolError(`Timed out after ${settings.timeoutMs} ms fetching ${url.href}`);
      throw toToolError(error, url);
    }
    if (answer.kind === "redirect") {
      if (hop >= settings.maxRedirects)
        throw new ToolError(`Too many redirects (more than ${settings.maxRedirects})`);
      url = parseUrl(new URL(answer.location, url).href);
      continue;
    }
    return {
      url: url.href,
      status: answer.status,
      contentType: answer.contentType,
      body: answer.body,
      ...(answer.truncated && { truncated: true as const }),
    };
  }
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError(`Not a valid URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError(`Refused: only http and https URLs can be fetched, not ${url.protocol}`);
  }
  if (url.username || url.password) throw new ToolError("Refused: URLs with credentials are not fetched");
  return url;
}

function isAllowed(url: URL, settings: HttpGetOptions): boolean {
  if (settings.allowPrivateNetworks) return true;
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return (settings.allowedHosts ?? []).some((entry) => {
    const e = entry.toLowerCase();
    return e === host || e === `${host}:${port}`;
  });
}

type Answer =
  | { kind: "redirect"; location: string }
  | { kind: "body"; status: number; contentType: string; body: string; truncated: boolean };

function getOnce(url: URL, lookup: LookupFunction, maxBytes: number, signal: AbortSignal): Promise<Answer> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise<Answer>((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: "GET",
        lookup,
        signal,
        // A fresh agent without keep-alive: no pooled socket outlives the call.
        agent: false,
        headers: {
          accept: "text/*, application/json;q=0.9, */*;q=0.1",
          "accept-encoding": "identity",
          "user-agent": "glassloop-http_get",
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        if (status >= 300 && status < 400 && location) {
          response.resume();
          resolve({ kind: "redirect", location });
          return;
        }
        const contentType = response.headers["content-type"] ?? "";
        if (contentType && !TEXT_TYPE.test(contentType)) {
          request.destroy();
          reject(
            new ToolError(`Refused: ${url.href} returned ${contentType.split(";")[0]}, not text or JSON`),
          );
          return;
        }
        const parts: Buffer[] = [];
        let size = 0;
        let truncated = false;
        response.on("data", (chunk: Buffer) => {
          if (truncated) return;
          const room = maxBytes - size;
          if (chunk.length > room) {
            parts.push(chunk.subarray(0, room));
            size = maxBytes;
            truncated = true;
            finish();
            request.destroy();
            return;
          }
          parts.push(chunk);
          size += chunk.length;
        });
        response.on("end", finish);
        response.on("error", (error) => {
          if (!truncated) reject(error);
        });
        let done = false;
        function finish() {
          if (done) return;
          done = true;
          const bytes = Buffer.concat(parts);
          if (!contentType && bytes.subarray(0, 8192).includes(0)) {
            reject(new ToolError(`Refused: ${url.href} returned binary content`));
            return;
          }
          let body = bytes.toString("utf8");
          if (truncated) body += `\n[truncated after ${maxBytes} bytes]`;
          resolve({ kind: "body", status, contentType, body, truncated });
        }
      },
    );
    request.on("error", reject);
    request.end();
  });
}

function toToolError(error: unknown, url: URL): ToolError {
  if (error instanceof ToolError) return error;
  if (error instanceof BlockedAddressError) return new ToolError(error.message);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN")
    return new ToolError(`Cannot resolve host ${url.hostname}`);
  if (code === "ECONNREFUSED") return new ToolError(`Connection refused by ${url.host}`);
  if (code === "ECONNRESET") return new ToolError(`Connection reset by ${url.host}`);
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError(`Fetching ${url.href} failed: ${message}`);
}
