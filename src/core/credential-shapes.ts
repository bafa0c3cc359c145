/**
 * The credential shapes every `Redactor` scrubs whether or not anyone declared the secret:
 * provider key formats, `Bearer` tokens, a URL's userinfo and its credential-named query
 * parameters. Each comes with a cheap test that any text it matches in passes, so the redactor
 * (which runs on everything that leaves the process) skips the scan where the test fails.
 */

/** A token after `Bearer ` (the token alone, so the header stays readable). */
export const BEARER_TOKEN = /(?<=\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;

/** The userinfo of a URL (`user:pass` in `https://user:pass@host/`), whatever scheme. */
const URL_USERINFO = /(?<=\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@"'<>\\]+(?=@)/gi;

/** Query parameter names that carry credentials: `key`, `api-key`, `access_token`, `sig`, `password` … */
export const CREDENTIAL_PARAM = String.raw`[\w.-]*?(?:key|token|secret|passw(?:or)?d|pwd|sig|signature|auth|credentials?)s?`;

/** The value of a credential-named query parameter. */
const URL_CREDENTIAL_PARAM = new RegExp(String.raw`(?<=[?&;]${CREDENTIAL_PARAM}=)[^&\s"'#<>\\]+`, "gi");

/**
 * A credential pattern, and a test every text it can match in passes: a search for what any match
 * needs around it. A pattern that starts with a look-behind is tried at every position of a text;
 * the test is one search, and a text that fails it is not scanned with the pattern at all.
 */
export interface CredentialShape {
  pattern: RegExp;
  mayMatch(text: string): boolean;
}

/** The test of a pattern that starts with a literal (V8 already scans for it), and of a caller's own. */
export const anyText = (): boolean => true;
/** `Bearer` and the white space after it, as `BEARER_TOKEN`'s look-behind needs them (same flags but `g`). */
const BEARER_WORD = /\bBearer\s/i;

/**
 * Credential shapes of the common providers, so a key nobody declared is still caught; every
 * `Redactor` scrubs them, in this order. Exported for the tests that hold each test to its pattern.
 */
export const BUILTIN_SHAPES: readonly CredentialShape[] = [
  { pattern: /\bsk-[A-Za-z0-9_-]{12,}/g, mayMatch: anyText },
  { pattern: /\bAIza[0-9A-Za-z_-]{30,}/g, mayMatch: anyText },
  // The `_` or `-` after the prefix.
  {
    pattern: /\b(?:gsk|hf|ghp|gho|ghs|github_pat|glpat|xai|pplx|r8)[_-][A-Za-z0-9_]{16,}/g,
    mayMatch: (text) => text.includes("_") || text.includes("-"),
  },
  { pattern: /\bAKIA[0-9A-Z]{16}\b/g, mayMatch: anyText },
  { pattern: BEARER_TOKEN, mayMatch: (text) => BEARER_WORD.test(text) },
  // `://` before the userinfo and the `@` after it.
  { pattern: URL_USERINFO, mayMatch: (text) => text.includes("://") && text.includes("@") },
  // The `=` after the parameter's name.
  { pattern: URL_CREDENTIAL_PARAM, mayMatch: (text) => text.includes("=") },
];
