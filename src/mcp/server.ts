import { z } from "zod";
import type { RunResult } from "../agent/agent-config.js";
import { RunError } from "../core/errors.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import { McpServer, StdioServerTransport } from "./sdk.js";

/** What an agent exposed over MCP needs: something that runs a task. */
export interface ServableAgent {
  readonly name: string;
  /** The typed output's schema: an object schema becomes the tool's `outputSchema`. */
  readonly outputSchema?: z.ZodType | undefined;
  run(
    input: string,
    options?: { signal?: AbortSignal; onEvent?: (event: AgentEvent) => void },
  ): Promise<RunResult<unknown>>;
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
 * a tool error (`isError`) with its code and message, so the calling model can react. A client that
 * sends a progress token hears each step and tool call as `notifications/progress`; a cancelled
 * request aborts the run; an agent with an object `output` schema declares it as the tool's
 * `outputSchema` and answers with `structuredContent`.
 */
export function createAgentServer(agent: ServableAgent, options: AgentServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: options.serverName ?? "glassloop", version: "0.1.0" },
    { capabilities: { logging: {} } },
  );
  const output = agent.outputSchema instanceof z.ZodObject ? agent.outputSchema : undefined;
  server.registerTool(
    options.toolName ?? agent.name,
    {
      description:
        options.description ?? `Runs the glassloop agent "${agent.name}" on a task and returns its answer.`,
      inputSchema: { input: z.string().describe("The complete task for the agent.") },
      ...(output && { outputSchema: output }),
    },
    async ({ input }, extra) => {
      const token = extra._meta?.progressToken;
      let progress = 0;
      const onEvent = (event: AgentEvent) => {
        const message = progressMessage(event);
        if (token === undefined || message === undefined) return;
        progress += 1;
        // A client that went away must not fail the run: progress is advisory.
        extra
          .sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress, message },
          })
          .catch(() => {});
      };
      try {
        const result = await agent.run(input, { signal: extra.signal, onEvent });
        const text = typeof result.output === "string" ? result.output : JSON.stringify(result.output);
        return {
          content: [{ type: "text", text }],
          ...(output && { structuredContent: result.output as Record<string, unknown> }),
        };
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

/** The progress line an event is worth, or undefined for the many that are not (deltas, retries). */
function progressMessage(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "step_start":
      return `step ${event.step}`;
    case "tool_call":
      return `calling ${event.toolName}`;
    case "tool_result":
      return `${event.toolName}: ${event.status}`;
    default:
      return undefined;
  }
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
