/**
 * Where a `Redactor`'s literal secrets come from besides the caller's list: the environment
 * (variables whose names say they hold a credential, and the credentials inside any URL-valued
 * variable) and the strings of a hidden context.
 */

import { CREDENTIAL_PARAM } from "./credential-shapes.js";

/** Shorter strings are too likely to be ordinary words: redacting them would mangle text. */
export const MIN_SECRET_LENGTH = 6;

/** `_`-separated parts of an environment variable's name that say its value is a credential. */
const SECRET_NAME_PARTS = new Set([
  "KEY",
  "APIKEY",
  "TOKEN",
  "SECRET",
  "PASS",
  "PASSWORD",
  "PASSWD",
  "PAT",
  "AUTH",
  "CREDENTIAL",
  "CREDENTIALS",
  "COOKIE",
]);
/** A part that ends in one of these is a credential too: `PGPASSWORD`, `GHTOKEN`, `CLIENTSECRET`. */
const SECRET_NAME_SUFFIX = /(?:PASSWORD|PASSWD|TOKEN|SECRET|APIKEY)$/;

/**
 * Whether an environment variable's name says it holds a secret: `OPENAI_API_KEY`, `GITHUB_PAT`,
 * `PGPASSWORD`, `DB_PASS`, `SESSION_COOKIE`, … (whole parts only: `GIT_AUTHOR_NAME`, `XAUTHORITY`
 * and `KEYBOARD_LAYOUT` do not).
 */
export function isSecretEnvName(name: string): boolean {
  return name
    .toUpperCase()
    .split(/[_-]/)
    .some((part) => SECRET_NAME_PARTS.has(part) || SECRET_NAME_SUFFIX.test(part));
}

/**
 * The credentials inside a URL: the password of its userinfo (the user name when it has none) and the values of its
 * credential-named query parameters (each decoded and as written). Empty for text that is no URL.
 */
export function urlSecrets(text: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || !URL.canParse(text)) return [];
  const url = new URL(text);
  const found: string[] = [];
  // `https://TOKEN@host` carries the credential as the user name; with a password, that is the one.
  const credential = url.password || url.username;
  if (credential) found.push(credential, safeDecode(credential));
  const param = new RegExp(`^${CREDENTIAL_PARAM}$`, "i");
  for (const [name, value] of url.searchParams) {
    if (param.test(name) && value) found.push(value, encodeURIComponent(value));
  }
  return [...new Set(found)].filter((s) => s.length >= MIN_SECRET_LENGTH);
}

/**
 * The secret values of an environment: those of variables whose names say they are credentials,
 * and the credentials inside any variable that holds a URL (`DATABASE_URL=postgres://u:pw@db/x`).
 */
export function envSecrets(env: Record<string, string | undefined>): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (isSecretEnvName(name)) found.push(value);
    found.push(...urlSecrets(value.trim()));
  }
  return found;
}

/** How many values of a hidden context are looked at, at most: a huge or cyclic context stays cheap. */
const MAX_CONTEXT_NODES = 10_000;

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Every string of `root` long enough to be a secret, found through objects, arrays, maps and sets. */
export function collectStrings(root: unknown, into: Set<string>): void {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  let visited = 0;
  while (stack.length > 0 && visited++ < MAX_CONTEXT_NODES) {
    const value = stack.pop();
    if (typeof value === "string") {
      if (value.length >= MIN_SECRET_LENGTH) into.add(value);
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
