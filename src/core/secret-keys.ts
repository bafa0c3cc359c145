/** The object keys whose values are credentials wherever they appear, told cheaply. */

/** Object keys whose values are credentials wherever they appear (headers, config, tool arguments). */
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

/** The shortest and longest of SECRET_KEYS: a key outside these lengths is none of them. */
const SECRET_KEY_MIN = Math.min(...[...SECRET_KEYS].map((k) => k.length));
const SECRET_KEY_MAX = Math.max(...[...SECRET_KEYS].map((k) => k.length));

/**
 * Whether `key` names a credential (SECRET_KEYS, any case). The length test comes first so the
 * short keys every event has (`type`, `runId`, `text`) are told without a lower-cased copy.
 * Exact: lower-casing never makes a key shorter, and where it makes one longer (`İ`) it adds a
 * character no credential key has.
 */
export function isSecretKey(key: string): boolean {
  return key.length >= SECRET_KEY_MIN && key.length <= SECRET_KEY_MAX && SECRET_KEYS.has(key.toLowerCase());
}
