import { problemResponse, ServeConfigError, ServeRequestError } from "./errors.js";

/** Cross-origin callers allowed, by exact origin (`https://app.example.com`). Closed by default. */
export interface CorsOptions {
  origins: readonly string[];
  /** Let allowed origins send cookies (default false: they use bearer tokens). */
  credentials?: boolean;
}

const ALLOW_HEADERS = "authorization, content-type, last-event-id";
const EXPOSE_HEADERS = "x-glassloop-run-id, x-glassloop-chat-id, retry-after";

/**
 * Same-origin requests pass; a request from another origin passes only if that origin is listed,
 * and is refused (403) before anything runs otherwise. A browser's cross-site request always
 * carries `Origin`, so this also keeps other sites from driving a logged-in page's cookie.
 */
export class CorsPolicy {
  readonly #origins: Set<string>;
  readonly #credentials: boolean;

  constructor(options: CorsOptions = { origins: [] }) {
    for (const origin of options.origins) {
      if (!URL.canParse(origin) || new URL(origin).origin !== origin)
        throw new ServeConfigError(
          `cors origin ${JSON.stringify(origin)} must be an origin like https://app.example.com`,
        );
    }
    this.#origins = new Set(options.origins);
    this.#credentials = options.credentials === true;
  }

  /** A response for a preflight or a refused origin; undefined when the request may go on. */
  check(request: Request): Response | undefined {
    const origin = request.headers.get("origin");
    if (origin === null || sameOrigin(request, origin)) {
      if (request.method === "OPTIONS" && origin !== null) return new Response(null, { status: 204 });
      return undefined;
    }
    if (!this.#origins.has(origin))
      return problemResponse(
        new ServeRequestError(403, "forbidden_origin", "this origin may not call the server"),
      );
    if (request.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          ...this.#allow(origin),
          "access-control-allow-methods": "GET, POST, DELETE",
          "access-control-allow-headers": ALLOW_HEADERS,
          "access-control-max-age": "600",
        },
      });
    }
    return undefined;
  }

  /** Adds the CORS headers to a response for an allowed cross-origin request. */
  decorate(request: Request, headers: Headers): void {
    const origin = request.headers.get("origin");
    if (origin === null || sameOrigin(request, origin) || !this.#origins.has(origin)) return;
    for (const [name, value] of Object.entries(this.#allow(origin))) headers.set(name, value);
    headers.set("access-control-expose-headers", EXPOSE_HEADERS);
  }

  #allow(origin: string): Record<string, string> {
    return {
      "access-control-allow-origin": origin,
      vary: "Origin",
      ...(this.#credentials && { "access-control-allow-credentials": "true" }),
    };
  }
}

/** Whether `origin` is the server's own (by the request URL or its Host header). */
function sameOrigin(request: Request, origin: string): boolean {
  if (!URL.canParse(origin)) return false;
  const from = new URL(origin);
  const url = new URL(request.url);
  return from.host === url.host || from.host === request.headers.get("host");
}
