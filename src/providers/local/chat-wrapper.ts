import type {
  ChatWrapper,
  ChatWrapperGenerateContextStateOptions,
  ChatWrapperGeneratedContextState,
  ChatWrapperSettings,
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
 *  - the call prefix's special token alone (e.g. `<tool_call>`) counts as the start of a call: the
 *    wrapper's settings gain it as an alternate prefix match, so LlamaChat's own call detection
 *    swaps it for the full prefix and generates the function name and arguments under the grammar,
 *    instead of waiting for the model to spell out `<tool_call>\n{"name": "` freely;
 *  - when the request requires a call, the grammar is entered at once (no free text first).
 * Wrappers that engage function calling from the first token, or steer with their own prefix
 * triggers, are left alone.
 *
 * (Chat-wrapper prefix triggers with a text fallback are avoided on purpose: in node-llama-cpp
 * 3.21.1 an unmatched trigger with an empty fallback leaves LlamaChat's token state stale, and a
 * reused KV cache is then cleared, so the model answers without its earlier context.)
 */
export function steerToolCalls(
  nlc: NodeLlamaCpp,
  inner: ChatWrapper,
  trigger: string | null,
  steering: ToolCallSteering,
): ChatWrapper {
  const wrapper = Object.create(inner) as ChatWrapper;
  if (trigger !== null && !steering.force) {
    const { functions } = inner.settings;
    const settings: ChatWrapperSettings = {
      ...inner.settings,
      functions: {
        ...functions,
        call: {
          ...functions.call,
          prefixAlternateMatches: [
            ...(functions.call.prefixAlternateMatches ?? []),
            nlc.LlamaText(new nlc.SpecialTokensText(trigger)),
          ],
        },
        parallelism: functions.parallelism && {
          ...functions.parallelism,
          // The bare token also counts right at the start of a response, where no section prefix precedes it.
          call: {
            ...functions.parallelism.call,
            sectionPrefixAlternateMatches: [
              ...(functions.parallelism.call.sectionPrefixAlternateMatches ?? []),
              "",
            ],
          },
        },
      },
    };
    Object.defineProperty(wrapper, "settings", { value: settings });
  }
  if (steering.force) {
    const generateContextState = (
      options: ChatWrapperGenerateContextStateOptions,
    ): ChatWrapperGeneratedContextState => {
      const state = inner.generateContextState(options);
      const hasFunctions = Object.keys(options.availableFunctions ?? {}).length > 0;
      if (!hasFunctions || state.functionCall?.initiallyEngaged) return state;
      if ((state.prefixTriggers?.length ?? 0) > 0 || state.noPrefixTrigger != null) return state;
      return {
        contextText: state.contextText,
        stopGenerationTriggers: state.stopGenerationTriggers,
        ...(state.rerender ? { rerender: state.rerender } : {}),
        ...(state.detectFunctionCalls !== undefined
          ? { detectFunctionCalls: state.detectFunctionCalls }
          : {}),
        noPrefixTrigger: { type: "functionCall", inject: nlc.LlamaText([]) },
      };
    };
    Object.defineProperty(wrapper, "generateContextState", { value: generateContextState });
  }
  return wrapper;
}
