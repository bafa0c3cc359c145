import { z } from "zod";
import type { RunResult } from "../agent/agent-config.js";
import { RunError } from "../core/errors.js";
import { McpServer, StdioServerTransport } from "./sdk.js";

/** What an agent exposed over MCP needs: something that runs a task. */
export interface ServableAgent {
  readonly name: string;
  run(input: string, options?: { signal?: AbortSignal }): Promise<RunResult<unknown>>;
}

/** How the agent is offered to MCP clients. */
export interface AgentServerOptions {
  /** The tool name clients see (default: the agent's name). */
  toolName?: string;
  description?: string;
  /** The server name in the MCP handshake (default "glassloop"). */
  serverName?: string;
}

/**
 * An MCP server with one tool that runs `agent` on the client's task. A failed run is returned as
 * a tool error (`isError`) with its code and message, so the calling model can react.
 */
export function createAgentServer(agent: ServableAgent, options: AgentServerOptions = {}): McpServer {
  const server = new McpServer({ name: options.serverName ?? "glassloop", version: "0.1.0" });
  server.registerTool(
    options.toolName ?? agent.name,
    {
      description:
        options.description ?? `Runs the glassloop agent "${agent.name}" on a task and returns its answer.`,
      inputSchema: { input: z.string().describe("The complete task for the agent.") },
    },
    async ({ input }, extra) => {
      try {
        const result = await agent.run(input, { signal: extra.signal });
        const text = typeof result.output === "string" ? result.output : JSON.stringify(result.output);
        return { content: [{ type: "text", text }] };
      } catch (error) {
        const text =
          error instanceof RunError
            ? `${error.code}: ${error.message}`
            : `The agent failed: ${String(error)}`;
        return { content: [{ type: "text", text }], isError: true };
      }
    },
  );
  return server;
}

/** Serves `agent` over stdio until the client disconnects (`glassloop mcp serve`). */
export async function serveAgentOverStdio(
  agent: ServableAgent,
  options: AgentServerOptions = {},
): Promise<void> {
  const server = createAgentServer(agent, options);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  await server.connect(transport);
  await closed;
}
