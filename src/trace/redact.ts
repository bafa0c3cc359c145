import { BEARER_TOKEN, REDACTED } from "../models/http/redact.js";

// One placeholder for the whole library, so a redacted trace and a redacted error read alike.
export { REDACTED };

/** What a redactor scrubs besides the built-in key patterns and header names. */
export interface RedactionOptions {
  /** Environment whose API-key-like variables are secrets (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Further literal secrets, e.g. passwords the hidden context holds. */
  secrets?: readonly string[];
  /** The hidden context: every string in it of 6 or more characters is treated as a secret. */
  context?: unknown;
  /** Further patterns to scrub; each must have the `g` flag. */
  patterns?: readonly RegExp[];
}

// Names of env variables whose values are credentials (the provider keys, and the usual suffixes).
const SECRET_ENV = /(?:^|_)(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|ACCESS_KEY|AUTH|CREDENTIALS?)(?:$|_)/i;

// Object keys whose values are credentials wherever they appear (headers, config, tool arguments).
const SECRET_KEYS = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "api_key",
  "apikey",
  "x-goog-api-key",
  "cookie",
  "set-cookie",
  "password",
  "client_secret",
  "access_token",
  "refresh_token",
]);

// Credential shapes of the common providers, so a key nobody declared is still caught.
const BUILTIN_PATTERNS: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{12,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  /\b(?:gsk|hf|ghp|gho|ghs|github_pat|glpat|xai|pplx|r8)[_-][A-Za-z0-9_]{16,}/g,
  /\bAKIA[0-9A-Z]{16}\b/g,
  BEARER_TOKEN,
  /(?<=[?&](?:key|api_key|apikey|access_token|token)=)[^&\s"'#]+/gi,
];

const MIN_ENV_SECRET = 8;
const MIN_CONTEXT_SECRET = 6;
const MAX_CONTEXT_NODES = 10_000;

/**
 * Scrubs API keys, credential headers and hidden-context values from anything bound for a trace,
 * a span or the viewer. Redaction works on values, not on serialized text, so the result stays
 * valid JSON of the same shape.
 */
export class Redactor {
  readonly #secrets: string[];
  readonly #patterns: readonly RegExp[];

  constructor(options: RedactionOptions = {}) {
    const found = new Set<string>();
    for (const [name, value] of Object.entries(options.env ?? process.env)) {
      if (value && value.length >= MIN_ENV_SECRET && SECRET_ENV.test(name)) found.add(value);
    }
    for (const secret of options.secrets ?? []) if (secret) found.add(secret);
    if (options.context !== undefined) collectStrings(options.context, found);
    // A secret can sit inside JSON text (tool arguments, raw bodies), where it appears escaped.
    for (const secret of [...found]) {
      const escaped = JSON.stringify(secret).slice(1, -1);
      if (escaped !== secret) found.add(escaped);
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.#secrets = [...found].sort((a, b) => b.length - a.length);
    this.#patterns = [...BUILTIN_PATTERNS, ...(options.patterns ?? [])];
  }

  /** Scrubs one string. */
  text(value: string): string {
    let out = value;
    for (const secret of this.#secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const pattern of this.#patterns) out = out.replace(pattern, REDACTED);
    return out;
  }

  /** `JSON.stringify(this.value(value))` without the intermediate copy: what trace writers use. */
  stringify(value: unknown): string {
    return JSON.stringify(value, (key, item: unknown) => {
      if (key !== "" && SECRET_KEYS.has(key.toLowerCase()) && item != null) return REDACTED;
      return typeof item === "string" ? this.text(item) : item;
    });
  }

  /** A deep copy of `value` with every string scrubbed and credential-named keys blanked. */
  value<T>(value: T): T {
    return this.#walk(value, new WeakMap()) as T;
  }

  #walk(value: unknown, seen: WeakMap<object, unknown>): unknown {
    if (typeof value === "string") return this.text(value);
    if (value === null || typeof value !== "object") return value;
    const done = seen.get(value);
    if (done !== undefined) return done;
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      seen.set(value, out);
      for (const item of value) out.push(this.#walk(item, seen));
      return out;
    }
    const out: Record<string, unknown> = {};
    seen.set(value, out);
    for (const [key, item] of Object.entries(value)) {
      out[key] = SECRET_KEYS.has(key.toLowerCase()) && item != null ? REDACTED : this.#walk(item, seen);
    }
    return out;
  }
}

/** Every string of `root` long enough to be a secret, found through objects, arrays, maps and sets. */
function collectStrings(root: unknown, into: Set<string>): void {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  let visited = 0;
  while (stack.length > 0 && visited++ < MAX_CONTEXT_NODES) {
    const value = stack.pop();
    if (typeof value === "string") {
      if (value.length >= MIN_CONTEXT_SECRET) into.add(value);
      continue;
    }
    if (value === null || typeof value !== "object" || seen.has(value)) continue;
    seen.add(value);
    if (value instanceof Map) {
      for (const [k, v] of value) stack.push(k, v);
    } else if (value instanceof Set || Array.isArray(value)) {
      for (const v of value) stack.push(v);
    } else {
      for (const key of Object.keys(value)) {
        try {
          stack.push((value as Record<string, unknown>)[key]);
        } catch {
          // A throwing getter is not a secret we can read, so not one we can leak either.
        }
      }
    }
  }
}
