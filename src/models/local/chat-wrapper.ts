import type {
  ChatWrapper,
  ChatWrapperGenerateContextStateOptions,
  ChatWrapperGeneratedContextState,
  ChatWrapperGeneratedPrefixTriggersContextState,
  LlamaModel,
} from "node-llama-cpp";
import type { NodeLlamaCpp } from "./engine.js";

/** How a request wants tool calls steered. */
export interface ToolCallSteering {
  /** The request requires a call: enter the function-call grammar right away. */
  force: boolean;
}

/**
 * The text of the special token a chat wrapper's function-call prefix starts with (e.g. `<tool_call>`
 * for Qwen-style templates), when it is a control or user-defined token of the model; else null.
 */
export function functionCallTrigger(
  nlc: NodeLlamaCpp,
  model: LlamaModel,
  wrapper: ChatWrapper,
): string | null {
  const prefix = wrapper.settings.functions.call.prefix;
  const tokens = nlc.LlamaText(prefix).tokenize(model.tokenizer, "trimLeadingSpace");
  const first = tokens[0];
  if (first === undefined || tokens.length < 2) return null;
  const attributes = model.getTokenAttributes(first);
  return attributes.control || attributes.userDefined ? model.detokenize([first], true) : null;
}

/**
 * Wraps a chat wrapper so that tool calls go through node-llama-cpp's grammar as early as possible:
 *  - when the model's first token is the call prefix's special token, a prefix trigger replaces it
 *    with the full prefix and the function name and arguments are generated under the grammar
 *    (instead of waiting for the model to spell out the whole prefix freely);
 *  - when the request requires a call, the grammar is entered at once (no free text first).
 * Wrappers that steer generation themselves (initially engaged functions, own prefix triggers) are left alone.
 * The wrapper's `ignoreStartText` (leading whitespace to skip) cannot be combined with prefix triggers;
 * the caller trims leading whitespace from the answer instead.
 */
export function steerToolCalls(
  nlc: NodeLlamaCpp,
  inner: ChatWrapper,
  trigger: string | null,
  steering: ToolCallSteering,
): ChatWrapper {
  const wrapper = Object.create(inner) as ChatWrapper;
  const generateContextState = (
    options: ChatWrapperGenerateContextStateOptions,
  ): ChatWrapperGeneratedContextState => {
    const state = inner.generateContextState(options);
    const hasFunctions = Object.keys(options.availableFunctions ?? {}).length > 0;
    // Wrappers that engage function calling from the first token already constrain it themselves.
    if (!hasFunctions || state.functionCall?.initiallyEngaged) return state;
    if ((state.prefixTriggers?.length ?? 0) > 0 || state.noPrefixTrigger != null) return state;
    const steered: ChatWrapperGeneratedPrefixTriggersContextState = {
      contextText: state.contextText,
      stopGenerationTriggers: state.stopGenerationTriggers,
      ...(state.rerender ? { rerender: state.rerender } : {}),
      ...(state.detectFunctionCalls !== undefined ? { detectFunctionCalls: state.detectFunctionCalls } : {}),
    };
    if (steering.force)
      return { ...steered, noPrefixTrigger: { type: "functionCall", inject: nlc.LlamaText([]) } };
    if (trigger === null) return state;
    return {
      ...steered,
      prefixTriggers: [
        {
          type: "functionCall",
          triggers: [nlc.LlamaText(new nlc.SpecialTokensText(trigger))],
          replaceTrigger: true,
        },
      ],
      // Without an explicit fallback, LlamaChat keeps the unmatched first token *and* generates it again.
      noPrefixTrigger: { type: "response", inject: nlc.LlamaText([]) },
    };
  };
  Object.defineProperty(wrapper, "generateContextState", { value: generateContextState });
  return wrapper;
}
