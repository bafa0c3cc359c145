import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { GlassloopError } from "../core/errors.js";
import { redact } from "../core/redact.js";
import { oauth } from "./sdk.js";

/** What an OAuth-protected MCP server's client keeps between runs: its registration and tokens. */
export interface McpCredentials {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
}

/** Where credentials live, keyed by the server's URL. The default keeps them in memory. */
export interface McpCredentialStore {
  load(server: string): McpCredentials | undefined | Promise<McpCredentials | undefined>;
  save(server: string, credentials: McpCredentials): void | Promise<void>;
}

/** OAuth 2.1 for a remote MCP server (authorization code with PKCE, through the SDK's flow). */
export interface McpOAuthOptions {
  /**
   * Shows the person the authorization URL (a browser, a printed link) and resolves with the `code`
   * the authorization server sent to `redirectUrl`.
   */
  authorize: (url: URL) => Promise<string>;
  /** Where the authorization server sends the person back (default `http://127.0.0.1:8976/callback`). */
  redirectUrl?: string;
  /** A client registered beforehand; without it glassloop registers one (dynamic registration). */
  clientId?: string;
  clientSecret?: string;
  /** An HTTPS URL of this client's metadata document, used as its id where the server supports that. */
  clientMetadataUrl?: string;
  /** The name shown on the consent screen (default "glassloop"). */
  clientName?: string;
  /** Scopes to ask for when the server does not say (default: the server's choice). */
  scope?: string;
  /** Default: in memory, for this process. */
  store?: McpCredentialStore;
  /** Most authorizations one request may start, step-up included (default 3). */
  maxAuthorizations?: number;
}

/** Authorization with an MCP server's authorization server failed or was refused. */
export class McpAuthError extends GlassloopError {
  constructor(server: string, why: string) {
    super("mcp_auth", `MCP server "${server}" authorization failed: ${why}`);
  }
}

/** The SDK's provider interface over glassloop's options and credential store. */
class Provider implements OAuthClientProvider {
  #credentials: McpCredentials = {};
  #verifier: string | undefined;
  #code: string | undefined;
  #loaded: Promise<void> | undefined;

  constructor(
    private readonly key: string,
    private readonly options: McpOAuthOptions,
  ) {}

  get redirectUrl(): string {
    return this.options.redirectUrl ?? "http://127.0.0.1:8976/callback";
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName ?? "glassloop",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...(this.options.scope && { scope: this.options.scope }),
    };
  }

  async load(): Promise<void> {
    this.#loaded ??= (async () => {
      const stored = await this.options.store?.load(this.key);
      if (stored) this.#credentials = { ...stored };
      if (this.options.clientId && !this.#credentials.client)
        this.#credentials.client = {
          client_id: this.options.clientId,
          ...(this.options.clientSecret && { client_secret: this.options.clientSecret }),
        };
    })();
    await this.#loaded;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#credentials.client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    this.#credentials.client = client;
    await this.options.store?.save(this.key, this.#credentials);
  }

  tokens(): OAuthTokens | undefined {
    return this.#credentials.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#credentials.tokens = tokens;
    await this.options.store?.save(this.key, this.#credentials);
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.#code = await this.options.authorize(url);
  }

  /** The code from the last authorization, once. */
  takeCode(): string | undefined {
    const code = this.#code;
    this.#code = undefined;
    return code;
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.#verifier) throw new Error("no PKCE code verifier saved for this authorization");
    return this.#verifier;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "all" || scope === "tokens") delete this.#credentials.tokens;
    if (scope === "all" || scope === "client") delete this.#credentials.client;
    if (scope === "all" || scope === "verifier") this.#verifier = undefined;
    await this.options.store?.save(this.key, this.#credentials);
  }

  /** Every secret this provider holds, for redaction. */
  secrets(): string[] {
    const { tokens, client } = this.#credentials;
    return [
      tokens?.access_token,
      tokens?.refresh_token,
      client && "client_secret" in client ? client.client_secret : undefined,
      this.options.clientSecret,
    ].filter((s): s is string => typeof s === "string" && s.length > 0);
  }
}

/**
 * A fetch for the MCP transport that carries the access token, and on 401 (no or expired token) or
 * 403 `insufficient_scope` (step-up) runs the SDK's authorization flow (protected-resource and
 * authorization-server discovery, dynamic or pre-registered client, PKCE, resource indicator,
 * refresh) and retries once authorized; at most `maxAuthorizations` times per request.
 */
export function oauthFetch(
  name: string,
  serverUrl: string,
  options: McpOAuthOptions,
  next: FetchLike = fetch,
): FetchLike {
  const provider = new Provider(serverUrl, options);
  const most = options.maxAuthorizations ?? 3;
  let granted: string | undefined = options.scope;

  const send = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    const token = provider.tokens()?.access_token;
    if (token) headers.set("authorization", `Bearer ${token}`);
    return next(input, { ...init, headers });
  };

  const authorize = async (response: Response): Promise<void> => {
    const { resourceMetadataUrl, scope } = oauth.extractWWWAuthenticateParams(response);
    // Step-up keeps what was granted and adds what the server now asks for.
    if (scope) granted = union(granted, scope);
    const flow = {
      serverUrl,
      fetchFn: next,
      ...(resourceMetadataUrl && { resourceMetadataUrl }),
      ...(granted && { scope: granted }),
    };
    try {
      let result = await oauth.auth(provider, flow);
      if (result === "REDIRECT") {
        const code = provider.takeCode();
        if (!code) throw new Error("the authorization gave no code");
        result = await oauth.auth(provider, { ...flow, authorizationCode: code });
      }
      if (result !== "AUTHORIZED") throw new Error(`the flow ended with ${result}`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new McpAuthError(name, redact(message, provider.secrets()));
    }
  };

  return async (input, init) => {
    await provider.load();
    let response = await send(input, init);
    for (let attempt = 0; attempt < most && needsAuthorization(response); attempt++) {
      await authorize(response);
      response = await send(input, init);
    }
    return response;
  };
}

function needsAuthorization(response: Response): boolean {
  if (response.status === 401) return true;
  return response.status === 403 && /insufficient_scope/.test(response.headers.get("www-authenticate") ?? "");
}

function union(a: string | undefined, b: string): string {
  return [...new Set([...(a ?? "").split(" "), ...b.split(" ")].filter(Boolean))].join(" ");
}
