import { RunError } from "../core/errors.js";
import { fenceFor } from "../core/prompt-fence.js";
import type { Message } from "../core/vocabulary/messages.js";
import type { ModelNext, RunHooks, RunState, StepRequest } from "../loop/hooks.js";
import { callModel } from "../loop/model-call.js";
import { abortError, budgetError } from "../loop/run-state.js";
import type { LongTermMemory } from "../memory/long-term.js";
import type { MemoryStrategy, SummaryRequest } from "../memory/strategy.js";
import { TokenCounter } from "../memory/tokens.js";
import { fitWindow } from "../memory/window-memory.js";
import type { Model, ModelResponse, ToolSpec } from "../models/model.js";

/** Automatic recall: long-term notes that match the run's input are added to the instructions. */
export interface RecallOptions {
  memory: LongTermMemory;
  /** How many notes to add (default 3). */
  k?: number;
}

/** What goes into one request besides tools and settings. */
export interface RequestParts {
  instructions?: string;
  messages: Message[];
}

/** The codes of a request too long for the model: the provider's answer, or the check before sending. */
const OVERFLOW_CODES = new Set<string>(["context_overflow", "context_window_exceeded"]);

/** How much of an over-long request is kept when compacting after a ContextOverflowError. */
const OVERFLOW_SHRINK = 0.7;

/**
 * Builds what the model sees on each call of a run: the memory strategy's view of the
 * transcript, recalled notes in the instructions, and a smaller view after a context overflow.
 * The transcript itself is never changed.
 */
export class ContextView {
  readonly #memory: MemoryStrategy | undefined;
  readonly #recall: RecallOptions | undefined;
  #tokens: TokenCounter | undefined;
  #recalled: string | undefined;
  /** Set by a context overflow and kept: later calls of the run stay under it without failing first. */
  #limit: number | undefined;

  constructor(options: { memory?: MemoryStrategy; recall?: RecallOptions }) {
    this.#memory = options.memory;
    this.#recall = options.recall;
  }

  /** The request parts for a call at `step`; `limit` is a token ceiling forced by an overflow. */
  async parts(
    state: RunState<unknown>,
    base: { instructions?: string; input: string; tools: readonly ToolSpec[] },
    step: number,
    overflowLimit?: number,
  ): Promise<RequestParts> {
    if (overflowLimit !== undefined) this.#limit = Math.min(overflowLimit, this.#limit ?? overflowLimit);
    const limit = this.#limit;
    const instructions = await this.#instructions(state, base);
    const system = state.messages[0]?.role === "system" ? 1 : 0;
    const all = state.messages.slice(system);
    const strategy = this.#memory;
    if (!strategy && limit === undefined)
      return { ...(instructions !== undefined && { instructions }), messages: all };
    const tokens = await this.#counter(state.model);
    const context = {
      ...(instructions !== undefined && { instructions }),
      tools: base.tools,
      tokens,
      ...(limit !== undefined && { limit }),
      ...(state.model.contextWindow !== undefined && { contextWindow: state.model.contextWindow }),
      summarize: (request: SummaryRequest) => this.#summarize(state, step, request),
    };
    const messages = strategy
      ? await strategy.select(all, context)
      : fitWindow(all, (limit ?? 0) - tokens.request({ ...context, messages: [] }), tokens);
    if (messages.length !== all.length || messages.some((m, i) => m !== all[i])) {
      state.emit({
        type: "context",
        step,
        reason: overflowLimit === undefined ? "memory" : "overflow",
        total: all.length,
        sent: messages.length,
        tokens: tokens.request({ ...context, messages }),
      });
    }
    return { ...(instructions !== undefined && { instructions }), messages };
  }

  /** Learns the provider's token counts from a response, when a counter is in use. */
  observe(parts: RequestParts, tools: readonly ToolSpec[], response: ModelResponse): void {
    this.#tokens?.calibrate({ ...parts, tools }, response.usage.inputTokens);
  }

  /** Tokens of a request as this view counts them. */
  async count(model: Model, parts: RequestParts, tools: readonly ToolSpec[]): Promise<number> {
    return (await this.#counter(model)).request({ ...parts, tools });
  }

  async #counter(model: Model): Promise<TokenCounter> {
    this.#tokens ??= await TokenCounter.forModel(model.id);
    return this.#tokens;
  }

  /** The instructions plus recalled notes, searched once per run with the run's input. */
  async #instructions(
    state: RunState<unknown>,
    base: { instructions?: string; input: string },
  ): Promise<string | undefined> {
    const recall = this.#recall;
    if (!recall) return base.instructions;
    if (this.#recalled === undefined) {
      try {
        const notes = await recall.memory.search(base.input, recall.k ?? 3, state.stop.signal);
        state.emit({
          type: "recall",
          query: base.input,
          notes: notes.map((n) => ({ id: n.id, text: n.text, score: n.score })),
        });
        this.#recalled = notes.length ? recalledNotes(notes.map((n) => n.text)) : "";
      } catch (error) {
        // Recall is a help, not the task: a search that fails is shown, and the run goes on without it.
        const message = error instanceof Error ? error.message : String(error);
        state.emit({ type: "recall", query: base.input, notes: [], error: message });
        this.#recalled = "";
      }
    }
    if (!this.#recalled) return base.instructions;
    return base.instructions ? `${base.instructions}\n\n${this.#recalled}` : this.#recalled;
  }

  /**
   * A summarization call: checked against tokens, dollars and time (not `maxSteps`: it serves the
   * current step), then made by the loop's one model call, marked `summary`.
   */
  async #summarize(state: RunState<unknown>, step: number, summary: SummaryRequest): Promise<string> {
    const breach = state.budget.beforeSideCall();
    if (breach) throw budgetError(state, breach);
    if (state.stop.aborted) throw abortError(state);
    const request = {
      instructions: summary.instructions,
      messages: [{ role: "user" as const, content: summary.prompt }],
      tools: [],
      ...(summary.maxOutputTokens !== undefined && { maxOutputTokens: summary.maxOutputTokens }),
      signal: state.stop.signal,
    };
    // The step's own model call: the same events, abort race, request and usage counting.
    const response = await callModel(state, step, request, "summary", summary.model ?? state.model);
    return response.text.trim();
  }
}

/**
 * Recalled notes for the instructions: a note may have been saved from a tool result or a model's
 * words, so each is fenced (core/prompt-fence.ts) and cannot close the list or write instructions.
 */
function recalledNotes(notes: readonly string[]): string {
  const fence = fenceFor("note", notes);
  return [
    `Notes from long-term memory that may be relevant (saved earlier; they may be outdated). ${fence.rule}`,
    ...notes.map((note) => fence.wrap(note)),
  ].join("\n");
}

/** Whether `error` says a request was too long for the model: the provider's answer, or the check before sending. */
export function isContextOverflow(error: unknown): error is RunError {
  return error instanceof RunError && OVERFLOW_CODES.has(error.code);
}

/**
 * The context view as a run feature: each model call sees what the memory strategy and recall
 * select (when configured), and a call the provider refuses as too long for its context window
 * is compacted once and retried; a second overflow ends the run as before. From the first
 * overflow on, the run keeps a view that stays under the limit. `view`: one already built (by
 * the compaction of an earlier overflow) that later calls keep going through.
 */
export function contextHooks(options: {
  memory?: MemoryStrategy;
  recall?: RecallOptions;
  input: string;
  view?: ContextView;
}): RunHooks {
  const { input } = options;
  let view = options.view ?? (options.memory || options.recall ? new ContextView(options) : undefined);
  return {
    async modelCall(state, step, request, next) {
      const sent = view ? shaped(request, await view.parts(state, baseOf(request, input), step)) : request;
      try {
        const response = await next(sent);
        view?.observe(sent, request.tools, response);
        return response;
      } catch (error) {
        // Too long by the provider's answer, or by the window check before sending: compact alike.
        if (!isContextOverflow(error)) throw error;
        view ??= new ContextView({});
        return compactAndRetry(view, state, step, request, sent, error, input, next);
      }
    },
  };
}

/**
 * After `sent` (the view of `request` that went out) was refused as too long (`error`): the
 * view is held to a smaller limit and the call is made once more, as the same step's call
 * (bound by tokens, dollars and time, not `maxSteps`). When compacting cannot shorten the
 * request, or the budget is spent, the run ends with the error.
 */
export async function compactAndRetry(
  view: ContextView,
  state: RunState<unknown>,
  step: number,
  request: StepRequest,
  sent: StepRequest,
  error: RunError,
  input: string,
  next: ModelNext,
): Promise<ModelResponse> {
  const limit = Math.floor((await view.count(state.model, sent, request.tools)) * OVERFLOW_SHRINK);
  const smaller = shaped(request, await view.parts(state, baseOf(request, input), step, limit));
  if (smaller.messages.length >= sent.messages.length) throw error;
  const breach = state.budget.beforeSideCall();
  if (breach) throw budgetError(state, breach);
  const response = await next(smaller);
  view.observe(smaller, request.tools, response);
  return response;
}

/** What a view builds a request from. */
function baseOf(request: StepRequest, input: string) {
  return { instructions: request.instructions, input, tools: request.tools };
}

/** `request` with the messages and instructions a view chose. */
function shaped(request: StepRequest, parts: RequestParts): StepRequest {
  const { instructions, ...rest } = request;
  const next: StepRequest = { ...rest, messages: parts.messages };
  if (parts.instructions !== undefined) next.instructions = parts.instructions;
  return next;
}
