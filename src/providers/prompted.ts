import { randomUUID } from "node:crypto";
import { ConfigError } from "../core/errors.js";
import type { ToolCall } from "../core/vocabulary/messages.js";
import type { Model, ModelObserver, ModelRequest, ModelResponse } from "../models/model.js";
import { extractToolCalls } from "./prompted/extract.js";
import {
  INVALID_PROMPTED_CALL,
  invalidCallArguments,
  promptedSystemPrompt,
  renderTranscript,
} from "./prompted/render.js";

/**
 * Prompt-mode tool calling for a model without native tool support: the tools are described in
 * the system prompt (name, description, JSON Schema) and no native tools are sent; calls are read
 * back from the answer's text, and tool results go back as text the model can read. A call that
 * cannot be read becomes an `invalid_tool_call`, whose result tells the model what was wrong, so
 * the run's retry budget (`limits.maxRetries`) applies as for any other unusable output.
 */
export function prompted(model: Model): Model {
  return new PromptedModel(model);
}

class PromptedModel implements Model {
  readonly id: string;
  readonly price?: Model["price"];
  readonly contextWindow?: number;

  constructor(readonly inner: Model) {
    this.id = inner.id;
    if (inner.price) this.price = inner.price;
    if (inner.contextWindow !== undefined) this.contextWindow = inner.contextWindow;
  }

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    if (request.tools.some((t) => t.name === INVALID_PROMPTED_CALL)) {
      throw new ConfigError(
        `prompted(): the tool name "${INVALID_PROMPTED_CALL}" is reserved for unreadable calls`,
      );
    }
    const instructions = promptedSystemPrompt(request.instructions, request.tools, request.toolChoice);
    const { toolChoice: _choice, instructions: _instructions, ...rest } = request;
    const response = await this.inner.generate(
      {
        ...rest,
        ...(instructions !== undefined && { instructions }),
        messages: renderTranscript(request.messages),
        tools: [],
      },
      observer,
    );
    if (request.tools.length === 0 || request.toolChoice === "none") return response;
    const extraction = extractToolCalls(
      response.text,
      request.tools.map((t) => t.name),
    );
    const toolCalls: ToolCall[] = [
      ...response.toolCalls,
      ...extraction.calls.map((call) => ({
        id: `call_${randomUUID().replaceAll("-", "").slice(0, 16)}`,
        ...(call.kind === "call"
          ? { name: call.name, arguments: call.arguments }
          : { name: INVALID_PROMPTED_CALL, arguments: invalidCallArguments(call.raw, describe(call)) }),
      })),
    ];
    if (toolCalls.length === 0) return response;
    return { ...response, text: extraction.text, toolCalls, finishReason: "tool_calls" };
  }
}

function describe(call: { name?: string; reason: string }): string {
  return call.name ? `the call to ${call.name}: ${call.reason}` : call.reason;
}
