import { ConfigError } from "../../core/errors.js";
import { redact } from "../../core/redact.js";

/**
 * `path` appended to the path of `baseURL`, its query kept after it: a base URL with
 * `?api-version=…` (Azure-style gateways) or `?key=…` still reaches `…/v1/chat/completions?…`.
 * `query` holds parameters the endpoint itself needs (Gemini's `alt=sse`): they come after the
 * user's, and replace a user parameter of the same name, since the endpoint does not work without
 * them. The user's own parameters keep their bytes exactly as written.
 */
export function endpointUrl(baseURL: string, path: string, query: Record<string, string> = {}): string {
  const own = Object.entries(query).map(
    ([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
  );
  if (!URL.canParse(baseURL)) {
    // Not a URL: the caller refuses it with a ConfigError; this only has to be readable there.
    return `${baseURL.replace(/\/+$/, "")}${path}${own.length > 0 ? `?${own.join("&")}` : ""}`;
  }
  const url = new URL(baseURL);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${path}`;
  const kept = url.search
    .slice(1)
    .split("&")
    .filter((pair) => pair !== "" && !Object.hasOwn(query, paramName(pair)));
  const search = [...kept, ...own].join("&");
  url.search = search === "" ? "" : `?${search}`;
  return url.href;
}

/** The decoded name of one `name=value` pair of a query string. */
function paramName(pair: string): string {
  const raw = pair.split("=", 1)[0] ?? "";
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}

/** A request URL split for fetch, which refuses URLs with credentials in them. */
export interface UrlTarget {
  /** The URL without its userinfo. */
  url: string;
  /** `Basic …` made from the userinfo, when the URL had one. */
  basicAuth?: string;
}

/**
 * Moves the userinfo of `url` (`https://user:pass@host`) into a `Basic` authorization value, as
 * curl does: fetch refuses such URLs (and its error quotes them whole), and no log, trace or
 * error should ever see the password in the URL again.
 */
export function splitUserinfo(url: string): UrlTarget {
  if (!URL.canParse(url)) return { url };
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password) return { url };
  const user = decodeURIComponent(parsed.username);
  const pass = decodeURIComponent(parsed.password);
  parsed.username = "";
  parsed.password = "";
  return { url: parsed.href, basicAuth: `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}` };
}

/** `headers` with the userinfo's `Basic` credentials, refused when the caller set its own authorization too. */
export function withBasicAuth(
  headers: Record<string, string>,
  target: UrlTarget,
  provider: string,
  shownUrl: string,
): Record<string, string> {
  if (target.basicAuth === undefined) return headers;
  if (Object.keys(headers).some((name) => name.toLowerCase() === "authorization")) {
    throw new ConfigError(
      `${provider}: the base URL ${redact(shownUrl, [])} has credentials and an API key is set too; give one of them`,
    );
  }
  return { ...headers, authorization: target.basicAuth };
}
