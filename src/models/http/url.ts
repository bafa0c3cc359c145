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
