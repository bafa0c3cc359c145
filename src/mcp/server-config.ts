import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ConfigError } from "../core/errors.js";
import { cappedFetch } from "./capped-fetch.js";
import type { McpClientFeatures } from "./client-features.js";
import { type McpOAuthOptions, oauthFetch } from "./oauth.js";
import { StdioClientTransport, StreamableHTTPClientTransport } from "./sdk.js";

/** How to reach an MCP server: spawn it (stdio) or call it (streamable HTTP). */
export type McpServerConfig = {
  /** Shown in tool errors and events. */
  name: string;
  /** Prefix tool names with `<prefix>_` to keep servers apart (default: no prefix). */
  prefix?: string;
  /** Longest wait for one tool call (default 60,000 ms). */
  callTimeoutMs?: number;
  /** Longest wait for the connection and the first tool list (default 20,000 ms). */
  connectTimeoutMs?: number;
  /** Longest wait for one re-read of the tool list after a change notification (default 20,000 ms). */
  listTimeoutMs?: number;
  /** Most tools the server may offer (default 512); more is an error, not a longer tool list. */
  maxTools?: number;
  /** Most pages one tool listing may take (default 64). */
  maxListPages?: number;
  /**
   * Most bytes of one message from a streamable HTTP server (a JSON body, or one SSE event; default
   * `READ_CAPS.mcpMessage`, 32 MiB). A larger answer is cut off: the call fails with an
   * InputTooLargeError and the rest is never read. (stdio servers are capped by the SDK.)
   */
  maxMessageBytes?: number;
  /**
   * Told about what the server got wrong and glassloop ignored (a line on stdout that is not
   * JSON-RPC, a response to no request, a tool list it refused). Default: `process.emitWarning`,
   * at most 10 per server.
   */
  onWarning?: (message: string) => void;
} & McpClientFeatures /** An already made transport (in-process servers, tests). */ &
  (
    | { transport: Transport }
    | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string }
    | {
        url: string;
        headers?: Record<string, string>;
        /** OAuth 2.1 for a server that asks for it (401 with a protected-resource metadata URL). */
        auth?: McpOAuthOptions;
      }
  );

/** The transport a config names: a spawned process (stdio) or a streamable HTTP endpoint. */
export function transportFor(config: Exclude<McpServerConfig, { transport: Transport }>): Transport {
  if ("command" in config) {
    return new StdioClientTransport({
      command: config.command,
      ...(config.args && { args: config.args }),
      ...(config.env && { env: config.env }),
      ...(config.cwd && { cwd: config.cwd }),
      stderr: "ignore",
    });
  }
  if ("url" in config) {
    return new StreamableHTTPClientTransport(new URL(config.url), {
      ...(config.headers && { requestInit: { headers: config.headers } }),
      fetch: config.auth
        ? oauthFetch(config.name, config.url, config.auth, cappedFetch(config.name, config.maxMessageBytes))
        : cappedFetch(config.name, config.maxMessageBytes),
    });
  }
  throw new ConfigError("An MCP server needs a `command` (stdio) or a `url` (streamable HTTP)");
}
