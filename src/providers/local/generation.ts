import { randomUUID } from "node:crypto";
import path from "node:path";
import type { ChatHistoryItem, LlamaChatResponse, Token } from "node-llama-cpp";
import type { FinishReason, ToolCall } from "../../core/vocabulary/messages.js";
import { ContextOverflowError } from "../../models/errors.js";
import type { ModelObserver, ModelRequest, ModelResponse } from "../../models/model.js";
import { steerToolCalls } from "./chat-wrapper.js";
import { describeError, LocalModelError } from "./errors.js";
import { mustCallTool, toChatHistory, toFunctions } from "./history.js";
import type { LocalSession } from "./session.js";

/** Sampling settings of one call, already defaulted. */
export interface GenerationSettings {
  maxTokens: number;
  temperature: number;
  seed?: number;
}

/**
 * One model call on a loaded session: the transcript becomes node-llama-cpp chat history, the
 * rendered prompt is reported through `onRequest`, and LlamaChat generates with grammar-constrained
 * function calling. LlamaChat returns the function calls it parsed instead of running them (no
 * handlers are given), so the loop validates, budgets, runs and records every call itself.
 */
export async function runGeneration(
  session: LocalSession,
  request: ModelRequest,
  observer: ModelObserver,
  settings: GenerationSettings,
): Promise<ModelResponse> {
  const { nlc, model, sequence } = session;
  const history = toChatHistory(request.instructions, request.messages);
  const functions = toFunctions(request);
  const chatWrapper = steerToolCalls(nlc, session.wrapper, session.trigger, {
    force: functions !== undefined && mustCallTool(request),
  });

  // Render exactly what LlamaChat will evaluate (it appends an empty model turn to answer into).
  const rendered: ChatHistoryItem[] =
    history.at(-1)?.type === "model" ? history : [...history, { type: "model", response: [] }];
  const state = chatWrapper.generateContextState({
    chatHistory: rendered,
    availableFunctions: functions,
    documentFunctionParams: true,
  });
  const promptTokens = state.contextText.tokenize(model.tokenizer);
  const contextSize = session.context.contextSize;
  if (promptTokens.length + settings.maxTokens > contextSize) {
    // Left alone, node-llama-cpp would silently drop the oldest turns; the loop compacts visibly instead.
    throw new ContextOverflowError(
      `The prompt (${promptTokens.length} tokens) plus maxTokens (${settings.maxTokens}) exceeds the local model's context of ${contextSize} tokens. ` +
        "Shorten the history (a memory strategy), lower maxTokens, or raise contextSize.",
      { provider: "local" },
    );
  }
  observer.onRequest({
    body: {
      engine: "node-llama-cpp",
      model: session.file,
      chatWrapper: session.wrapper.wrapperName,
      prompt: model.detokenize(promptTokens, true),
      promptTokens: promptTokens.length,
      history: structuredClone(history),
      functions: functions ?? null,
      settings: {
        maxTokens: settings.maxTokens,
        temperature: settings.temperature,
        ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
        threads: session.threads,
        contextSize,
        toolChoice: request.toolChoice ?? "auto",
        // The token that starts a call; when a call is required the grammar starts at once instead.
        functionCallTrigger: functions && !mustCallTool(request) ? session.trigger : null,
      },
    },
    attempt: 1,
  });

  const cachedTokens = commonPrefixLength(sequence.contextTokens, promptTokens);
  const meterBefore = sequence.tokenMeter.getState();
  const rawArguments = new Map<number, string>();
  const streamedArguments = new Map<number, number>();
  const chat = new nlc.LlamaChat({ contextSequence: sequence, chatWrapper, autoDisposeSequence: false });
  let result: LlamaChatResponse<NonNullable<typeof functions>>;
  try {
    result = await chat.generateResponse(structuredClone(history), {
      functions,
      documentFunctionParams: true,
      maxTokens: settings.maxTokens,
      temperature: settings.temperature,
      ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
      signal: request.signal,
      onTextChunk: request.stream ? (text) => text && observer.onDelta?.({ type: "text", text }) : undefined,
      onFunctionCallParamsChunk: ({ callIndex, functionName, paramsChunk }) => {
        const text = (rawArguments.get(callIndex) ?? "") + paramsChunk;
        rawArguments.set(callIndex, text);
        if (!request.stream) return;
        // The params grammar ends every call with "\n\n\n\n"; stream only what precedes trailing whitespace.
        const stable = text.trimEnd();
        const sent = streamedArguments.get(callIndex);
        if (sent !== undefined && stable.length <= sent) return;
        observer.onDelta?.({
          type: "tool_call",
          index: callIndex,
          ...(sent === undefined ? { name: functionName } : {}),
          argumentsDelta: stable.slice(sent ?? 0),
        });
        streamedArguments.set(callIndex, stable.length);
      },
    });
  } catch (error) {
    if (request.signal.aborted) throw request.signal.reason ?? error;
    throw new LocalModelError("local_generation_failed", `Local generation failed: ${describeError(error)}`, {
      cause: error,
    });
  } finally {
    chat.dispose({ disposeSequence: false });
  }

  const used = sequence.tokenMeter.diff(meterBefore);
  const toolCalls: ToolCall[] = (result.functionCalls ?? []).map((call, index) => ({
    id: `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`,
    name: call.functionName,
    arguments: argumentsText(rawArguments.get(index), call.params),
  }));
  return {
    text: result.response,
    toolCalls,
    usage: {
      inputTokens: promptTokens.length,
      outputTokens: used.usedOutputTokens,
      cachedInputTokens: cachedTokens,
    },
    finishReason: finishReasonOf(result.metadata.stopReason, toolCalls.length),
    modelName: model.fileInfo.metadata.general?.name ?? path.basename(session.file),
    raw: {
      response: result.response,
      fullResponse: result.fullResponse,
      functionCalls: result.functionCalls ?? [],
      stopReason: result.metadata.stopReason,
    },
  };
}

/** The arguments exactly as the model wrote them, when they parse; else the parsed params re-serialized. */
function argumentsText(raw: string | undefined, params: unknown): string {
  const trimmed = raw?.trim();
  if (trimmed) {
    try {
      JSON.parse(trimmed);
      return trimmed;
    } catch {
      // fall through: the grammar guarantees `params` is valid
    }
  }
  return JSON.stringify(params ?? {});
}

function finishReasonOf(stopReason: string, toolCallCount: number): FinishReason {
  if (stopReason === "maxTokens") return "length";
  if (stopReason === "functionCalls" || toolCallCount > 0) return "tool_calls";
  if (stopReason === "abort") return "other";
  return "stop";
}

function commonPrefixLength(a: readonly Token[], b: readonly Token[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}
