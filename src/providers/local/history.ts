import type {
  ChatHistoryItem,
  ChatModelFunctionCall,
  ChatModelFunctions,
  ChatModelResponse,
} from "node-llama-cpp";
import type { Message } from "../../core/vocabulary/messages.js";
import type { ModelRequest, ToolChoice } from "../../models/model.js";
import { parseArguments } from "../../models/tool-arguments.js";
import { LocalModelError } from "./errors.js";
import { toGrammarSchema } from "./schema.js";

/**
 * glassloop's transcript → node-llama-cpp's chat history. An assistant turn with tool calls and
 * the tool results after it become one model response whose function calls carry their results,
 * and the assistant turn that follows the results continues that same response: that is how
 * node-llama-cpp's chat wrappers render a call, its result and the model's next words.
 */
export function toChatHistory(
  instructions: string | undefined,
  messages: readonly Message[],
): ChatHistoryItem[] {
  const history: ChatHistoryItem[] = [];
  if (instructions) history.push({ type: "system", text: instructions });
  const pending = new Map<string, ChatModelFunctionCall>();
  let previous: Message["role"] | undefined;
  for (const message of messages) {
    switch (message.role) {
      case "system":
        history.push({ type: "system", text: message.content });
        break;
      case "user":
        history.push({ type: "user", text: message.content });
        break;
      case "assistant": {
        const last = history.at(-1);
        const continuing = previous === "tool" && last?.type === "model";
        const response: ChatModelResponse["response"] = continuing ? last.response : [];
        if (!continuing) history.push({ type: "model", response });
        if (message.content) response.push(message.content);
        (message.toolCalls ?? []).forEach((call, index) => {
          const functionCall: ChatModelFunctionCall = {
            type: "functionCall",
            name: call.name,
            params: parseArguments(call.arguments),
            result: undefined,
            // A later assistant turn's calls are a new batch, not more parallel calls of the last one.
            ...(index === 0 && continuing ? { startsNewChunk: true } : {}),
          };
          response.push(functionCall);
          pending.set(call.id, functionCall);
        });
        break;
      }
      case "tool": {
        const call = pending.get(message.toolCallId);
        if (!call) {
          throw new LocalModelError(
            "local_bad_history",
            `The transcript has a result for tool call "${message.toolCallId}" (${message.toolName}) but no assistant message requested it`,
          );
        }
        call.result = message.isError ? { error: message.content } : message.content;
        pending.delete(message.toolCallId);
        break;
      }
    }
    previous = message.role;
  }
  // The loop pairs every call with a result; this only guards hand-made histories.
  for (const call of pending.values()) call.result = { error: "no result was recorded for this call" };
  return history;
}

/** The tools a request offers, as node-llama-cpp functions (none when `toolChoice` is "none"). */
export function toFunctions(
  request: Pick<ModelRequest, "tools" | "toolChoice">,
): ChatModelFunctions | undefined {
  const choice: ToolChoice = request.toolChoice ?? "auto";
  if (choice === "none" || request.tools.length === 0) return undefined;
  const tools =
    typeof choice === "object" ? request.tools.filter((t) => t.name === choice.name) : request.tools;
  if (tools.length === 0) return undefined;
  const functions: Record<string, { description?: string; params?: ReturnType<typeof toGrammarSchema> }> = {};
  for (const tool of tools) {
    functions[tool.name] = { description: tool.description, params: toGrammarSchema(tool.parameters) };
  }
  return functions;
}

/** Whether the request obliges the model to call a tool now. */
export function mustCallTool(request: Pick<ModelRequest, "toolChoice">): boolean {
  return request.toolChoice === "required" || typeof request.toolChoice === "object";
}
