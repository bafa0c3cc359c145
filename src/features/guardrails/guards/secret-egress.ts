import { envSecrets, MIN_SECRET_LENGTH } from "../../../core/redact.js";
import type { GuardrailVerdict, ToolGuardrail } from "../guardrail.js";
import { stringsIn } from "./strings.js";

/** Options of `secretEgressGuard`. */
export interface SecretEgressOptions {
  /** Where the secrets come from: variables whose names say they hold one, and URL credentials (default `process.env`, read at each check). */
  env?: Record<string, string | undefined>;
  /** More literal secrets (6 characters or more) besides the environment's. */
  secrets?: readonly string[];
  /** Also withhold a result that contains a secret from the model (default true). */
  results?: boolean;
  /** `reject` (default): the call is refused and the model told why; `tripwire`: the run stops. */
  onMatch?: "reject" | "tripwire";
  /** The tools it watches, by name (default: all). */
  tools?: readonly string[];
}

/**
 * A tool guardrail that refuses any call whose arguments carry a known secret of the environment
 * (the API keys in `process.env` the providers use, every credential-named variable, URL
 * credentials), as written, split across arguments, or in a common encoding (base64, base64url,
 * hex, percent-encoding, reversed); and, by default, withholds a result that contains one, so
 * neither the model nor its provider ever reads it. The model is never told the secret itself.
 */
export function secretEgressGuard(options: SecretEgressOptions = {}): ToolGuardrail {
  const onMatch = options.onMatch ?? "reject";
  const extra = (options.secrets ?? []).filter((s) => s.length >= MIN_SECRET_LENGTH);
  const secrets = () => [...new Set([...envSecrets(options.env ?? process.env), ...extra])];
  const verdict = (what: string): GuardrailVerdict =>
    onMatch === "tripwire"
      ? { action: "tripwire", reason: `${what} a secret of the environment` }
      : {
          action: "reject",
          message: `Refused: ${what} a secret (an API key or credential). Never send or repeat credentials.`,
        };
  const guard: ToolGuardrail = {
    name: "secret-egress",
    ...(options.tools && { tools: options.tools }),
    before(call) {
      const found = findSecret([call.arguments, ...stringsIn(call.args)], secrets());
      return found ? verdict("the call's arguments contain") : { action: "allow" };
    },
  };
  if (options.results !== false)
    guard.after = (result) => {
      const found = findSecret([result.content], secrets());
      return found ? verdict("the call's result contains") : { action: "allow" };
    };
  return guard;
}

/** The first of `secrets` found in `texts` (each, and all of them joined), in any of the forms the guard knows. */
export function findSecret(texts: readonly string[], secrets: readonly string[]): string | undefined {
  if (secrets.length === 0) return undefined;
  // Split across fields ("sk-abc" + "def…") or across lines and spaces, the joined text still has it.
  const joined = texts.join("");
  // JSON written around the pieces (`{"a":"sk-ab", "b":"cdef"}`): its keys and punctuation go.
  const squeezed = joined.replace(/"[^"\\]*"\s*:/g, "").replace(/[\s"',+{}[\]]+/g, "");
  const haystacks = [...texts, joined, squeezed];
  const lower = haystacks.map((h) => h.toLowerCase());
  for (const secret of secrets) {
    for (const form of forms(secret)) {
      // Hex and percent-encoding may be written in either case; the other forms are case-exact.
      const search = form.caseless ? lower : haystacks;
      const needle = form.caseless ? form.text.toLowerCase() : form.text;
      if (search.some((h) => h.includes(needle))) return secret;
    }
  }
  return undefined;
}

/** The forms a model (or an injected instruction) would use to smuggle `secret` out. */
function forms(secret: string): { text: string; caseless: boolean }[] {
  const bytes = Buffer.from(secret, "utf8");
  return [
    { text: secret, caseless: false },
    { text: [...secret].reverse().join(""), caseless: false },
    ...base64Forms(bytes).map((text) => ({ text, caseless: false })),
    { text: bytes.toString("hex"), caseless: true },
    { text: encodeURIComponent(secret), caseless: true },
  ].filter((f) => f.text.length >= MIN_SECRET_LENGTH);
}

/**
 * The base64 (and base64url) characters of `bytes` wherever they sit in a longer encoded text:
 * for each of the three byte offsets, the 4-character groups made of the secret's bytes alone
 * (the groups it shares with the bytes around it differ from text to text).
 */
function base64Forms(bytes: Buffer): string[] {
  const found: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const pad = (3 - offset) % 3;
    const encoded = Buffer.concat([Buffer.alloc(pad), bytes]);
    const start = pad === 0 ? 0 : 4;
    const end = Math.floor(encoded.length / 3) * 4;
    for (const alphabet of ["base64", "base64url"] as const) {
      const text = encoded.toString(alphabet).slice(start, end);
      if (text) found.push(text);
    }
  }
  return [...new Set(found)];
}
