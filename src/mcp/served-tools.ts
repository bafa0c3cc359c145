import type { CallToolResult, LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { ConfigError, RunError } from "../core/errors.js";
import { argumentCheck } from "./json-schema-tool.js";
import { type McpServer, schemas } from "./sdk.js";
import type { McpServedTool, McpToolAnswer, McpToolCall } from "./served-types.js";

/** MCP's tool-name rule (wider than providers': dots are allowed). */
const TOOL_NAME = /^[a-zA-Z0-9_.-]{1,128}$/;
const LEVELS: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

type Extra = Parameters<Parameters<McpServer["server"]["setRequestHandler"]>[1]>[1];

/**
 * Offers `tools` on `server` (`tools/list`, `tools/call`) with their JSON Schemas as written (2020-12
 * keywords, `$defs`, `additionalProperties` survive), arguments checked before `run`, and a
 * `McpToolCall` for progress, logs, questions, sampling. Also takes over `logging/setLevel`, so a
 * tool's logs honour the level the client chose.
 */
export function installTools(server: McpServer, tools: readonly McpServedTool[]): void {
  const byName = new Map<string, { tool: McpServedTool; check: ReturnType<typeof argumentCheck> }>();
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name))
      throw new ConfigError(
        `Invalid MCP tool name ${JSON.stringify(tool.name)}: use 1-128 of [a-zA-Z0-9_.-]`,
      );
    if (byName.has(tool.name)) throw new ConfigError(`Two MCP tools are named "${tool.name}"`);
    byName.set(tool.name, { tool, check: argumentCheck(inputSchemaOf(tool), tool.name) });
  }
  const low = server.server;
  low.registerCapabilities({ tools: { listChanged: false }, logging: {} });
  let level: LoggingLevel | undefined;
  low.setRequestHandler(schemas.SetLevelRequestSchema, (request) => {
    level = request.params.level;
    return {};
  });
  const ignored = (wanted: LoggingLevel) =>
    level !== undefined && LEVELS.indexOf(wanted) < LEVELS.indexOf(level);

  low.setRequestHandler(schemas.ListToolsRequestSchema, () => ({
    tools: [...byName.values()].map(({ tool }) => ({
      name: tool.name,
      ...(tool.title && { title: tool.title }),
      description: tool.description,
      inputSchema: inputSchemaOf(tool),
      ...(tool.outputSchema && { outputSchema: tool.outputSchema }),
    })),
  }));

  low.setRequestHandler(schemas.CallToolRequestSchema, async (request, extra) => {
    const found = byName.get(request.params.name);
    if (!found)
      throw new schemas.McpError(
        schemas.ErrorCode.InvalidParams,
        `Unknown tool ${JSON.stringify(request.params.name.slice(0, 128))}`,
      );
    const args = request.params.arguments ?? {};
    const issues = found.check(args);
    if (issues.length > 0)
      return errorAnswer(
        `Invalid arguments for ${found.tool.name}: ${issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
      );
    try {
      return answerOf(await found.tool.run(args, callFor(server, extra, ignored)));
    } catch (error) {
      if (error instanceof RunError) return errorAnswer(`${error.code}: ${error.message}`);
      return errorAnswer(error instanceof Error ? error.message : String(error));
    }
  });
}

function inputSchemaOf(tool: McpServedTool) {
  const schema = tool.inputSchema ?? { type: "object" };
  return { ...schema, type: "object" as const };
}

/** The call's powers, each sent on the call's own stream (related to its request id). */
function callFor(server: McpServer, extra: Extra, ignored: (level: LoggingLevel) => boolean): McpToolCall {
  const token = extra._meta?.progressToken;
  const related = { relatedRequestId: extra.requestId, signal: extra.signal };
  return {
    signal: extra.signal,
    sessionId: extra.sessionId,
    async progress(progress, total, message) {
      if (token === undefined) return;
      await extra.sendNotification({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress,
          ...(total !== undefined && { total }),
          ...(message !== undefined && { message }),
        },
      });
    },
    async log(level, data, logger) {
      if (ignored(level)) return;
      await extra.sendNotification({
        method: "notifications/message",
        params: { level, data, ...(logger !== undefined && { logger }) },
      });
    },
    async elicit(message, schema) {
      offered(server, "elicitation");
      return server.server.elicitInput({ message, requestedSchema: schema }, related);
    },
    async sample(request) {
      offered(server, "sampling");
      return server.server.createMessage(request, related);
    },
    closeStream() {
      extra.closeSSEStream?.();
    },
  };
}

/** Throws a clear error when the client did not offer `capability` (rather than the client's "method not found"). */
function offered(server: McpServer, capability: "elicitation" | "sampling"): void {
  if (server.server.getClientCapabilities()?.[capability] === undefined)
    throw new schemas.McpError(schemas.ErrorCode.InvalidRequest, `The client did not offer ${capability}`);
}

function answerOf(answer: McpToolAnswer): CallToolResult {
  if (typeof answer === "string") return { content: [{ type: "text", text: answer }] };
  return {
    content: answer.content,
    ...(answer.structuredContent && { structuredContent: answer.structuredContent }),
    ...(answer.isError && { isError: true }),
  };
}

function errorAnswer(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
