/**
 * One tool-calling turn and one text answer in each provider's own wire shapes, JSON and streamed,
 * for tests that drive the same conversation through every provider against the wire server.
 */

import type { Model } from "glassloop";
import { AnthropicModel, GeminiModel, OpenAIChatModel, OpenAIResponsesModel } from "glassloop/models";
import { chatJson, chatSse } from "./openai-replies.js";
import { sseData, sseEvents, type WireReply } from "./wire-server.js";

/** How one provider answers: a single tool call (`id`, `name`, no arguments), or a text. */
export interface Dialect {
  name: "openai" | "openai-responses" | "anthropic" | "google";
  model(baseURL: string): Model;
  toolCall(id: string, name: string, stream: boolean): WireReply;
  text(text: string, stream: boolean): WireReply;
}

const responsesDone = (output: unknown[]) => ({
  id: "resp_1",
  status: "completed",
  output,
  usage: { input_tokens: 5, output_tokens: 2 },
});

const anthropicMessage = (content: unknown[], stopReason: string) => ({
  id: "msg_1",
  type: "message",
  role: "assistant",
  content,
  stop_reason: stopReason,
  usage: { input_tokens: 5, output_tokens: 2 },
});

const anthropicStream = (block: object, delta: object, stopReason: string) =>
  sseEvents(
    [
      { type: "message_start", message: { ...anthropicMessage([], stopReason), stop_reason: null } },
      { type: "content_block_start", index: 0, content_block: block },
      { type: "content_block_delta", index: 0, delta },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: stopReason }, usage: { output_tokens: 2 } },
      { type: "message_stop" },
    ].map((data) => ({ event: data.type, data })),
  );

const geminiChunk = (part: object) => ({
  candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP" }],
  usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2 },
});

/** The four wire formats. */
export const DIALECTS: Dialect[] = [
  {
    name: "openai",
    model: (url) => new OpenAIChatModel({ model: "gpt-4o", baseURL: `${url}/v1`, apiKey: "sk-test-0000" }),
    toolCall: (id, name, stream) =>
      (stream ? chatSse : chatJson)({ toolCalls: [{ id, name, arguments: "{}" }] }),
    text: (text, stream) => (stream ? chatSse : chatJson)({ text }),
  },
  {
    name: "openai-responses",
    model: (url) =>
      new OpenAIResponsesModel("gpt-5", { apiKey: "sk-test-0000", baseURL: `${url}/v1`, env: {} }),
    toolCall: (id, name, stream) => {
      const item = { type: "function_call", id: "fc_1", call_id: id, name, arguments: "{}" };
      if (!stream) return { json: responsesDone([item]) };
      return {
        sse: sseEvents([
          {
            event: "response.created",
            data: { type: "response.created", response: { id: "resp_1", output: [] } },
          },
          {
            event: "response.output_item.added",
            data: { type: "response.output_item.added", output_index: 0, item: { ...item, arguments: "" } },
          },
          {
            event: "response.function_call_arguments.delta",
            data: { type: "response.function_call_arguments.delta", output_index: 0, delta: "{}" },
          },
          {
            event: "response.output_item.done",
            data: { type: "response.output_item.done", output_index: 0, item },
          },
          {
            event: "response.completed",
            data: { type: "response.completed", response: responsesDone([item]) },
          },
        ]),
      };
    },
    text: (text, stream) => {
      const item = { type: "message", role: "assistant", content: [{ type: "output_text", text }] };
      if (!stream) return { json: responsesDone([item]) };
      return {
        sse: sseEvents([
          {
            event: "response.output_text.delta",
            data: { type: "response.output_text.delta", output_index: 0, delta: text },
          },
          {
            event: "response.completed",
            data: { type: "response.completed", response: responsesDone([item]) },
          },
        ]),
      };
    },
  },
  {
    name: "anthropic",
    model: (url) =>
      new AnthropicModel("claude-haiku-4-5", { apiKey: "sk-ant-test-0000", baseURL: url, cache: false }),
    toolCall: (id, name, stream) =>
      stream
        ? {
            sse: anthropicStream(
              { type: "tool_use", id, name, input: {} },
              { type: "input_json_delta", partial_json: "{}" },
              "tool_use",
            ),
          }
        : { json: anthropicMessage([{ type: "tool_use", id, name, input: {} }], "tool_use") },
    text: (text, stream) =>
      stream
        ? { sse: anthropicStream({ type: "text", text: "" }, { type: "text_delta", text }, "end_turn") }
        : { json: anthropicMessage([{ type: "text", text }], "end_turn") },
  },
  {
    name: "google",
    model: (url) =>
      new GeminiModel("gemini-2.5-flash", { apiKey: "g-test-0000", baseURL: `${url}/v1beta`, env: {} }),
    toolCall: (id, name, stream) => {
      const chunk = geminiChunk({ functionCall: { id, name, args: {} } });
      return stream ? { sse: sseData([chunk], { done: false }) } : { json: chunk };
    },
    text: (text, stream) => {
      const chunk = geminiChunk({ text });
      return stream ? { sse: sseData([chunk], { done: false }) } : { json: chunk };
    },
  },
];
