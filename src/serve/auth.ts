import { createHash, timingSafeEqual } from "node:crypto";
import { ServeConfigError } from "./errors.js";

/** Who a request acts for: every chat and run belongs to one principal. */
export interface Principal {
  /** Stable id; chats and runs are keyed by it. */
  id: string;
}

/**
 * How callers prove who they are. `tokens`: bearer tokens or API keys (a list, or names to
 * tokens; a name becomes the principal id). `verify`: your own check (a JWT, a session cookie),
 * tried when no token matches; it returns the principal or null. `"none"`: every caller is the
 * one principal `local` (local development only). Omitted: tokens from `GLASSLOOP_SERVE_TOKENS`.
 */
export type ServeAuth =
  | "none"
  | {
      tokens?: readonly string[] | Readonly<Record<string, string>>;
      verify?: (request: Request) => Principal | null | undefined | Promise<Principal | null | undefined>;
    };

/** The cookie the page's login sets (HttpOnly, SameSite=Strict). */
export const TOKEN_COOKIE = "glassloop_token";

const MIN_TOKEN_LENGTH = 16;

interface KnownToken {
  digest: Buffer;
  principal: string;
}

/** Checks requests against the configured auth, in constant time per token. */
export class Authenticator {
  readonly #tokens: KnownToken[];
  readonly #verify:
    | ((request: Request) => Principal | null | undefined | Promise<Principal | null | undefined>)
    | undefined;
  readonly #none: boolean;

  constructor(auth: ServeAuth | undefined, env: Record<string, string | undefined> = process.env) {
    this.#none = auth === "none";
    const config =
      auth === "none" ? {} : (auth ?? { tokens: parseTokenList(env.GLASSLOOP_SERVE_TOKENS ?? "") });
    this.#verify = config.verify;
    const entries: [string, string][] = Array.isArray(config.tokens)
      ? config.tokens.map((t) => [principalOf(t), t])
      : Object.entries((config.tokens ?? {}) as Record<string, string>);
    for (const [name, token] of entries) {
      if (typeof token !== "string" || token.length < MIN_TOKEN_LENGTH)
        throw new ServeConfigError(`the token of ${name} is shorter than ${MIN_TOKEN_LENGTH} characters`);
    }
    this.#tokens = entries.map(([principal, token]) => ({ principal, digest: digest(token) }));
    if (!this.#none && this.#tokens.length === 0 && !this.#verify)
      throw new ServeConfigError(
        'serve needs auth: { tokens: [...] } or { verify }, or GLASSLOOP_SERVE_TOKENS (auth: "none" for local development only)',
      );
  }

  /** Whether callers need no credentials at all. */
  get open(): boolean {
    return this.#none;
  }

  /** The principal of `token`, comparing against every known token (no early exit). */
  tokenPrincipal(token: string): string | undefined {
    const given = digest(token);
    let found: string | undefined;
    for (const known of this.#tokens) if (timingSafeEqual(known.digest, given)) found ??= known.principal;
    return found;
  }

  /** The request's principal: bearer token, then the login cookie, then `verify`; undefined if none. */
  async principal(request: Request): Promise<Principal | undefined> {
    if (this.#none) return { id: "local" };
    const bearer = bearerOf(request);
    if (bearer !== undefined) {
      const id = this.tokenPrincipal(bearer);
      if (id !== undefined) return { id };
    }
    const cookie = cookieOf(request, TOKEN_COOKIE);
    if (cookie !== undefined) {
      const id = this.tokenPrincipal(cookie);
      if (id !== undefined) return { id };
    }
    if (this.#verify) {
      const found = await this.#verify(request);
      if (found && typeof found.id === "string" && found.id !== "") return { id: found.id };
    }
    return undefined;
  }
}

/** `GLASSLOOP_SERVE_TOKENS`: comma-separated tokens, each optionally `name=token`. */
export function parseTokenList(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const eq = entry.indexOf("=");
    if (eq > 0) out[entry.slice(0, eq)] = entry.slice(eq + 1);
    else out[principalOf(entry)] = entry;
  }
  return out;
}

/** A token's principal id when it has no name: a short hash, never the token itself. */
function principalOf(token: string): string {
  return `key-${createHash("sha256").update(token).digest("hex").slice(0, 12)}`;
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/** The bearer token of `Authorization`, if any. */
export function bearerOf(request: Request): string | undefined {
  const header = request.headers.get("authorization");
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/** One cookie's value. */
export function cookieOf(request: Request, name: string): string | undefined {
  const header = request.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}
