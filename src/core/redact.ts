/**
 * The one redaction rule of glassloop. Every channel text leaves through (human CLI output,
 * `--json`, `--show-prompt`, traces and spans, the viewer, error messages, retry events, the
 * store) scrubs with a `Redactor`, so what counts as a secret is decided here and nowhere else:
 *
 * - literal secrets of 6 or more characters: API keys a provider was given, values of environment
 *   variables whose names say they hold one, every string of the hidden context, `secrets` the
 *   caller lists;
 * - credential shapes nobody declared: provider key formats, `Bearer` tokens, the userinfo of a
 *   URL (`https://user:pass@host`) and credential-named query parameters (`?api-key=…`, `?key=…`);
 * - in structured values, anything under a credential-named key (`authorization`, `cookie`, …).
 */

import { anyText, BUILTIN_SHAPES, type CredentialShape } from "./credential-shapes.js";
import { collectMatches } from "./pattern-matches.js";
import { isSecretKey } from "./secret-keys.js";
import { collectStrings, envSecrets, MIN_SECRET_LENGTH, urlSecrets } from "./secret-sources.js";
import { TextMemo } from "./text-memo.js";

/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]";

// Where the literal secrets come from (secret-sources.ts), exported here beside the rule that uses them.
export { envSecrets, isSecretEnvName, MIN_SECRET_LENGTH, urlSecrets } from "./secret-sources.js";

/** What a redactor scrubs besides the built-in key patterns and header names. */
export interface RedactionOptions {
  /** Environment whose credential-named variables (and URL credentials) are secrets (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Further literal secrets, e.g. an API key or passwords the hidden context holds. */
  secrets?: readonly string[];
  /** The hidden context: every string in it of 6 or more characters is treated as a secret. */
  context?: unknown;
  /** Further patterns to scrub; each must have the `g` flag. */
  patterns?: readonly RegExp[];
}

/**
 * No built-in pattern matches fewer characters than this (`?key=x` and `a://u@` are the shortest
 * texts that hold a match), and no literal secret is shorter (MIN_SECRET_LENGTH): a shorter text
 * of a redactor without caller patterns holds nothing to scrub.
 */
const SHORTEST_BUILTIN_MATCH = 6;

/**
 * Scrubs secrets from text and values bound for any output. Redaction works on values, not on
 * serialized text, so a redacted value stays valid JSON of the same shape.
 */
export class Redactor {
  readonly #secrets: string[];
  readonly #patterns: readonly CredentialShape[];
  /** Texts this short hold nothing to scrub: SHORTEST_BUILTIN_MATCH, or 0 with caller patterns. */
  readonly #shortest: number;
  /**
   * Scrubbed texts by the text they were scrubbed from: a history is scrubbed at every sink it
   * reaches and again at every step (a model step's output, its request event, the workflow's
   * output, the store), each time the same messages. Strings are immutable and `text` is a pure
   * function of the string (the secrets and patterns are fixed at construction), so a remembered
   * answer is the answer, whatever object the text arrived in.
   */
  readonly #memo = new TextMemo();

  constructor(options: RedactionOptions = {}) {
    const found = new Set<string>(envSecrets(options.env ?? process.env));
    for (const secret of options.secrets ?? []) {
      found.add(secret);
      for (const inner of urlSecrets(secret)) found.add(inner);
    }
    if (options.context !== undefined) collectStrings(options.context, found);
    // A secret can sit inside JSON text (tool arguments, raw bodies), where it appears escaped.
    for (const secret of [...found]) {
      const escaped = JSON.stringify(secret).slice(1, -1);
      if (escaped !== secret) found.add(escaped);
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.#secrets = [...found]
      .filter((s) => s.length >= MIN_SECRET_LENGTH)
      .sort((a, b) => b.length - a.length);
    this.#patterns = [
      ...BUILTIN_SHAPES,
      ...(options.patterns ?? []).map((pattern) => ({ pattern, mayMatch: anyText })),
    ];
    // A caller's pattern may match a single character.
    this.#shortest = options.patterns?.length ? 0 : SHORTEST_BUILTIN_MATCH;
  }

  /** The length of the longest literal secret (0: none): how much of a stream may hide one's start. */
  get longestSecret(): number {
    return this.#secrets[0]?.length ?? 0;
  }

  /** Scrubs one string. */
  text(value: string): string {
    if (value.length < this.#shortest) return value;
    const known = this.#memo.get(value);
    if (known !== undefined) return known;
    const out = this.#scrub(value);
    this.#memo.set(value, out);
    return out;
  }

  /** `text` without the memo: every literal secret, then every pattern. */
  #scrub(value: string): string {
    let out = value;
    for (const secret of this.#secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    // Each test reads the text as the pattern will: after the replacements before it.
    for (const { pattern, mayMatch } of this.#patterns)
      if (mayMatch(out)) out = out.replace(pattern, REDACTED);
    return out;
  }

  /** Where `value` holds a secret or a credential shape, as `[start, end)` ranges of the unscrubbed text. */
  spans(value: string): [number, number][] {
    const found: [number, number][] = [];
    for (const secret of this.#secrets) {
      for (let at = value.indexOf(secret); at !== -1; at = value.indexOf(secret, at + 1))
        found.push([at, at + secret.length]);
    }
    for (const { pattern, mayMatch } of this.#patterns) {
      if (!mayMatch(value)) continue;
      // A pattern without the `g` flag is refused by matchAll, as it always was.
      if (!pattern.global) {
        for (const match of value.matchAll(pattern)) found.push([match.index, match.index + match[0].length]);
        continue;
      }
      collectMatches(pattern, value, found);
    }
    return found;
  }

  /** `JSON.stringify(this.value(value))` without the intermediate copy: what trace writers use. */
  stringify(value: unknown, space?: number): string {
    return JSON.stringify(value, this.#replacer, space);
  }

  /**
   * `stringify`, except that a string `aside` takes (it returns a stand-in for it) is neither
   * scrubbed nor serialized here: the stand-in takes its place, and the caller writes it scrubbed
   * (a slicing `redactingJsonSink` writes long texts in slices). Credential-named keys are
   * blanked before `aside` sees their values.
   */
  stringifyAside(value: unknown, aside: (item: string) => string | undefined): string {
    return JSON.stringify(value, (key, item: unknown) => {
      if (key !== "" && isSecretKey(key) && item != null) return REDACTED;
      if (typeof item !== "string") return this.#boxed(item);
      return aside(item) ?? this.text(item);
    });
  }

  /** The replacer of `stringify`: every string scrubbed, every credential-named key blanked. */
  readonly #replacer = (key: string, item: unknown): unknown => {
    if (key !== "" && isSecretKey(key) && item != null) return REDACTED;
    return typeof item === "string" ? this.text(item) : this.#boxed(item);
  };

  /**
   * A `String` object (`new String(…)`) is written by `JSON.stringify` as its text, after a
   * replacer has seen it as an object: scrubbed here as the text it becomes. Anything else as it is.
   */
  #boxed(item: unknown): unknown {
    return item instanceof String ? this.text(String(item)) : item;
  }

  /** A deep copy of `value` with every string scrubbed and credential-named keys blanked. */
  value<T>(value: T): T {
    // A Map, not a WeakMap: it lives only for this walk, and V8's Map is the cheaper of the two.
    return this.#walk(value, new Map()) as T;
  }

  #walk(value: unknown, seen: Map<object, unknown>): unknown {
    if (typeof value === "string") return this.text(value);
    if (value === null || typeof value !== "object") return value;
    if (value instanceof String) return this.text(String(value));
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
    // Object.keys, not Object.entries: the same own enumerable keys, without a pair per key.
    for (const key of Object.keys(value)) {
      const item: unknown = (value as Record<string, unknown>)[key];
      out[key] = isSecretKey(key) && item != null ? REDACTED : this.#walk(item, seen);
    }
    return out;
  }
}

/**
 * `text` scrubbed by the one rule with `secrets` as the literal secrets (and no environment): what
 * the HTTP layer applies to every error message, retry event, excerpt and shown URL.
 */
export function redact(text: string, secrets: readonly string[]): string {
  return new Redactor({ env: {}, secrets }).text(text);
}
