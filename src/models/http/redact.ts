/**
 * Secrets never leave glassloop in text it produces: every error message, retry event and excerpt
 * of a server's answer goes through `redact` with the request's secrets (its API key).
 */

/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]";

/** A token after `Bearer ` (the token alone, so the header stays readable); shared with the trace Redactor. */
export const BEARER_TOKEN = /(?<=\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;

// Too short to be a key and too likely to be an ordinary word; redacting them would mangle text.
const MIN_SECRET_LENGTH = 6;

/** `text` with every occurrence of each secret, and of any bearer token, replaced by `[REDACTED]`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= MIN_SECRET_LENGTH && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  // A server may echo the Authorization header itself, with a key we were never told about.
  return out.replace(BEARER_TOKEN, REDACTED);
}
