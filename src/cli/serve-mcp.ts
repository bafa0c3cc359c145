import type { AgentConfig, AgentConfigWithoutOutput } from "../agent/agent-config.js";
import type { ServeAuth } from "../serve/auth.js";
import { parseTokenList } from "../serve/auth.js";
import type { ServeModule } from "../serve/serve-module.js";
import { UsageError } from "./command.js";

/** What `glassloop serve --mcp <agent>` mounts at `/mcp`, and what it closes at the end. */
export interface ServeMcpMount {
  handler: { fetch(request: Request): Promise<Response>; close(): Promise<void> };
  /** Closes the agent's own tool sources (the handler closes the MCP sessions). */
  close(): Promise<void>;
  /** Whether callers must send a bearer token. */
  tokens: boolean;
}

/**
 * The MCP mount of `glassloop serve --mcp <agent>`: the named agent of the module as an MCP tool
 * over streamable HTTP (`createAgentMcpHandler`). Its bearer tokens are `GLASSLOOP_MCP_TOKENS`
 * when set, else the same tokens the chat API accepts, so one credential reaches both; a module
 * that checks callers with its own `verify` function must name MCP tokens, since an MCP client
 * cannot pass that check. Only `auth: "none"` leaves the endpoint open, as it leaves the API.
 */
export async function serveMcpMount(
  module: ServeModule,
  name: string,
  auth: ServeAuth | undefined,
  env: Record<string, string | undefined>,
  allowedHosts: readonly string[] | undefined,
): Promise<ServeMcpMount> {
  const factory = Object.hasOwn(module.agents, name) ? module.agents[name] : undefined;
  if (!factory)
    throw new UsageError(
      `--mcp ${JSON.stringify(name)} names no agent of the module (it has ${Object.keys(module.agents).join(", ")})`,
      "serve",
    );
  const tokens = mcpTokens(auth, env);
  const [{ Agent }, { createAgentMcpHandler }] = await Promise.all([
    import("../agent/agent.js"),
    import("../mcp/http-server.js"),
  ]);
  const config = (await factory()) as AgentConfig<unknown, unknown>;
  // Typed as without output only to pick a constructor overload: the config is passed on as given.
  const agent = new Agent({ name, ...config } as AgentConfigWithoutOutput<unknown, unknown>);
  const handler = createAgentMcpHandler(agent, {
    ...(tokens.length > 0 && { tokens }),
    ...(allowedHosts && { allowedHosts: [...allowedHosts] }),
  });
  return { handler, close: () => agent.close(), tokens: tokens.length > 0 };
}

/** The MCP endpoint's tokens: its own, else the API's; none only for `auth: "none"`. */
function mcpTokens(auth: ServeAuth | undefined, env: Record<string, string | undefined>): string[] {
  const own = (env.GLASSLOOP_MCP_TOKENS ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  if (own.length > 0) return own;
  if (auth === "none") return [];
  const listed = auth?.tokens ?? (auth === undefined ? parseTokenList(env.GLASSLOOP_SERVE_TOKENS ?? "") : {});
  const tokens = Array.isArray(listed) ? [...listed] : Object.values(listed as Record<string, string>);
  if (tokens.length === 0)
    throw new UsageError(
      "--mcp needs bearer tokens: set GLASSLOOP_MCP_TOKENS (the module's auth has no tokens an MCP client could send)",
      "serve",
    );
  return tokens;
}
