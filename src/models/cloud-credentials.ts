import { GlassloopError } from "../core/errors.js";

/**
 * A cloud provider's credentials are missing, expired or could not be obtained (AWS keys, an
 * Entra ID or Google access token). The message names what to set; nothing was sent.
 */
export class CloudCredentialsError extends GlassloopError {
  /** The provider label, e.g. `bedrock`, `azure`, `vertex`. */
  readonly provider: string;
  constructor(provider: string, message: string, options?: { cause?: unknown }) {
    super("cloud_credentials", message, options);
    this.provider = provider;
  }
}

/**
 * Supplies a bearer token for each call (an Entra ID or Google access token); called before every
 * request, so it should cache and refresh as token libraries do.
 */
export type TokenProvider = () => string | Promise<string>;

/** Asks `provider` for a token, turning a failure or an empty answer into a `CloudCredentialsError`. */
export async function tokenFrom(tokens: TokenProvider, label: string, hint: string): Promise<string> {
  let token: string;
  try {
    token = await tokens();
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    throw new CloudCredentialsError(label, `${label}: the token provider failed (${detail}); ${hint}`, {
      cause,
    });
  }
  if (typeof token !== "string" || token.trim() === "")
    throw new CloudCredentialsError(label, `${label}: the token provider returned no token; ${hint}`);
  return token.trim();
}

/**
 * The inner model a cloud deployment speaks through, for the token of this call: the token
 * provider is asked before every call (it caches and refreshes on its own), and the model, whose
 * headers carry the token, is rebuilt only when the token changed.
 */
export class TokenBoundModel<M> {
  #current: { token: string | undefined; model: M } | undefined;

  /** `tokens` undefined: a key in `build`'s headers instead, one model for good. */
  constructor(
    private readonly tokens: TokenProvider | undefined,
    private readonly label: string,
    private readonly hint: string,
    private readonly build: (token: string | undefined) => M,
  ) {}

  /** The model for this call's token. */
  async current(): Promise<M> {
    const token = this.tokens ? await tokenFrom(this.tokens, this.label, this.hint) : undefined;
    if (this.#current?.token !== token || this.#current === undefined)
      this.#current = { token, model: this.build(token) };
    return this.#current.model;
  }
}
