import { z } from "zod";
import type { RunResult } from "../agent/agent-config.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { JsonSchema } from "../models/model.js";
import type { Store } from "../store/store.js";
import { McpServer, StdioServerTransport } from "./sdk.js";
import { installPrompts, installResources } from "./served-resources.js";
import { installTools } from "./served-tools.js";
import type {
  McpServedPrompt,
  McpServedResourceTemplate,
  McpServedTool,
  McpServerContent,
} from "./served-types.js";

/** What an agent exposed over MCP needs: something that runs a task. */
export interface ServableAgent {
  readonly name: string;
  /** The typed output's schema: an object schema becomes the tool's `outputSchema`. */
  readonly outputSchema?: z.ZodType | undefined;
  /** Its instructions, offered as a prompt with `instructionsPrompt`. */
  readonly instructions?: string | undefined;
  /** Where its sessions live, offered as resources with `transcripts`. */
  readonly store?: Store;
  run(
    input: string,
    options?: { signal?: AbortSignal; onEvent?: (event: AgentEvent) => void },
  ): Promise<RunResult<unknown>>;
}

/** How a glassloop MCP server introduces itself, and what it offers beside any agent. */
export interface McpServerOptions extends McpServerContent {
  /** The server name in the MCP handshake (default "glassloop"). */
  serverName?: string;
  /** Told to clients in `initialize`: how to use this server. */
  serverInstructions?: string;
}

/** How the agent is offered to MCP clients. */
export interface AgentServerOptions extends McpServerOptions {
  /** The tool name clients see (default: the agent's name). */
  toolName?: string;
  description?: string;
  /**
   * Offers the agent's instructions as a prompt named `<tool name>_instructions` (with an optional
   * `task` argument appended), so a client can use the same brief with its own model. Default
   * false: instructions can be confidential.
   */
  instructionsPrompt?: boolean;
  /**
   * Offers stored session transcripts as resources `glassloop://sessions/{id}` (JSON messages;
   * listed, readable, ids completed). `true` uses the agent's store. Default false: transcripts hold
   * what people told the agent.
   */
  transcripts?: boolean | { store: Store };
}

/** Most sessions a transcript listing shows (the newest first). */
const MAX_LISTED_SESSIONS = 500;

/**
 * An MCP server made of glassloop's parts: tools with JSON Schemas and a call context (progress,
 * logs, questions, sampling), resources with templates and subscriptions, prompts with completion.
 * Serve it with `createMcpHttpHandler(() => createMcpServer(...))` or over stdio.
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: options.serverName ?? "glassloop", version: "0.1.0" },
    {
      capabilities: { logging: {} },
      ...(options.serverInstructions && { instructions: options.serverInstructions }),
    },
  );
  installTools(server, options.tools ?? []);
  installResources(server, options.resources ?? [], options.resourceTemplates ?? []);
  installPrompts(server, options.prompts ?? []);
  return server;
}

/**
 * An MCP server with one tool that runs `agent` on the client's task. A failed run is returned as
 * a tool error (`isError`) with its code and message, so the calling model can react. A client that
 * sends a progress token hears each step and tool call as `notifications/progress`; a cancelled
 * request aborts the run; an agent with an object `output` schema declares it as the tool's
 * `outputSchema` and answers with `structuredContent`. Optionally its instructions as a prompt and
 * its sessions as resources, plus anything in `options` (tools, resources, prompts).
 */
export function createAgentServer(agent: ServableAgent, options: AgentServerOptions = {}): McpServer {
  const name = options.toolName ?? agent.name;
  const prompts: McpServedPrompt[] = [...(options.prompts ?? [])];
  if (options.instructionsPrompt && agent.instructions !== undefined)
    prompts.push(instructionsPrompt(name, agent.instructions));
  const templates: McpServedResourceTemplate[] = [...(options.resourceTemplates ?? [])];
  const { transcripts } = options;
  const store = transcripts === true ? agent.store : transcripts ? transcripts.store : undefined;
  if (store) templates.push(transcriptTemplate(store));
  return createMcpServer({
    ...options,
    tools: [agentTool(agent, name, options.description), ...(options.tools ?? [])],
    prompts,
    resourceTemplates: templates,
  });
}

function agentTool(agent: ServableAgent, name: string, description: string | undefined): McpServedTool {
  const output = agent.outputSchema instanceof z.ZodObject ? agent.outputSchema : undefined;
  return {
    name,
    description: description ?? `Runs the glassloop agent "${agent.name}" on a task and returns its answer.`,
    inputSchema: {
      type: "object",
      properties: { input: { type: "string", description: "The complete task for the agent." } },
      required: ["input"],
    },
    ...(output && { outputSchema: z.toJSONSchema(output, { io: "output" }) as JsonSchema }),
    async run(args, call) {
      let progress = 0;
      const onEvent = (event: AgentEvent) => {
        const message = progressMessage(event);
        if (message === undefined) return;
        progress += 1;
        // A client that went away must not fail the run: progress is advisory.
        call.progress(progress, undefined, message).catch(() => {});
      };
      const result = await agent.run(String(args.input), { signal: call.signal, onEvent });
      const text = typeof result.output === "string" ? result.output : JSON.stringify(result.output);
      if (!output) return text;
      return {
        content: [{ type: "text", text }],
        structuredContent: result.output as Record<string, unknown>,
      };
    },
  };
}

function instructionsPrompt(name: string, instructions: string): McpServedPrompt {
  return {
    name: `${name}_instructions`,
    description: `The instructions of the glassloop agent "${name}", optionally followed by a task.`,
    arguments: [{ name: "task", description: "A task to append after the instructions." }],
    get: ({ task }) => (task ? `${instructions}\n\nTask: ${task}` : instructions),
  };
}

function transcriptTemplate(store: Store): McpServedResourceTemplate {
  const sessions = async () =>
    (await store.listSessions()).sort((a, b) => b.updatedAt - a.updatedAt).slice(0, MAX_LISTED_SESSIONS);
  return {
    uriTemplate: "glassloop://sessions/{id}",
    name: "session",
    description: "A stored session's transcript (its messages, as JSON).",
    mimeType: "application/json",
    list: async () =>
      (await sessions()).map((s) => ({
        uri: `glassloop://sessions/${encodeURIComponent(s.sessionId)}`,
        name: s.sessionId,
        description: `${s.messageCount} messages, last updated ${new Date(s.updatedAt).toISOString()}`,
        mimeType: "application/json",
      })),
    read: async (_uri, { id }) => JSON.stringify(await store.readSession(decodeURIComponent(id ?? ""))),
    complete: {
      id: async (value) =>
        (await sessions())
          .map((s) => s.sessionId)
          .filter((id) => id.startsWith(value))
          .slice(0, 100),
    },
  };
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
