import { createHash } from "node:crypto";
import { ConfigError } from "../core/errors.js";
import { type DataSection, fencedPrompt, fenceFor } from "../core/prompt-fence.js";
import type { Message } from "../core/vocabulary/messages.js";
import type { Model } from "../models/model.js";
import { type Ceiling, type CeilingOptions, ceilingFor, checkCeiling } from "./ceiling.js";
import { fixedTokens, type MemoryContext, type MemoryStrategy } from "./strategy.js";
import { groupUnits, latestUserIndex } from "./units.js";
import { fitWindow } from "./window-memory.js";

/** Options of {@link SummaryMemory}. */
export interface SummaryMemoryOptions extends CeilingOptions {
  /** Messages kept verbatim at the end (moved earlier if needed so no tool call is split); default 6. */
  keepRecent?: number;
  /** The summarizer's system prompt. */
  instructions?: string;
  /** Longest summary to ask for, in tokens (default 512). */
  summaryMaxTokens?: number;
  /** A model for summaries (say, a cheaper one); default the agent's. Its tokens count in the run's usage. */
  model?: Model;
}

/** The prefix of the message that carries a summary, so readers (and models) can tell it apart. */
export const SUMMARY_PREFIX = "Summary of the earlier conversation:";

const DEFAULT_INSTRUCTIONS =
  "You condense conversations between a user, an assistant and its tools. Write a summary that lets " +
  "the assistant continue the work without the original messages: keep facts, names, numbers, " +
  "decisions, tool results that matter, and what is still to do. Plain text, no preamble.";

interface Cached {
  /** How many leading messages the summary covers. */
  covers: number;
  hash: string;
  text: string;
}

/**
 * When the transcript outgrows `maxTokens` (or `at`, a fraction of the model's context window), replaces its older part with one summary message,
 * written by a model call that is visible like any other (events with `purpose: "summary"`).
 * The summary is reused while the view fits and extended incrementally when it no longer does,
 * so a long run pays for one summary call each time it crosses the threshold, not on every step.
 */
export class SummaryMemory implements MemoryStrategy {
  readonly maxTokens?: number;
  readonly at?: number;
  readonly keepRecent: number;
  readonly #ceiling: Ceiling;
  readonly #instructions: string;
  readonly #summaryMaxTokens: number;
  readonly #model: Model | undefined;
  #cache: Cached | undefined;

  constructor(options: SummaryMemoryOptions) {
    this.#ceiling = checkCeiling(options, "SummaryMemory");
    if (this.#ceiling.maxTokens !== undefined) this.maxTokens = this.#ceiling.maxTokens;
    if (this.#ceiling.at !== undefined) this.at = this.#ceiling.at;
    const keepRecent = options.keepRecent ?? 6;
    if (!Number.isInteger(keepRecent) || keepRecent < 0)
      throw new ConfigError(`SummaryMemory: keepRecent must be a whole number >= 0, got ${keepRecent}`);
    this.keepRecent = keepRecent;
    this.#instructions = options.instructions ?? DEFAULT_INSTRUCTIONS;
    this.#summaryMaxTokens = options.summaryMaxTokens ?? 512;
    this.#model = options.model;
  }

  async select(messages: readonly Message[], context: MemoryContext): Promise<Message[]> {
    const max = ceilingFor(this.#ceiling, context, "SummaryMemory");
    const budget = max - fixedTokens(context);
    const cost = (view: readonly Message[]) => view.reduce((n, m) => n + context.tokens.message(m), 0);
    if (cost(messages) <= budget) return [...messages];

    const cached = this.#reusable(messages);
    if (cached) {
      const view = this.#view(messages, cached);
      if (cost(view) <= budget) return view;
    }
    const cut = this.#cut(messages);
    if (cut === 0) return fitWindow(messages, budget, context.tokens);
    const older = this.#older(messages, cut);
    const previous = cached && cached.covers <= cut ? cached : undefined;
    const fresh = older.slice(previous ? previous.covers : 0);
    const text =
      fresh.length === 0 && previous
        ? previous.text
        : await context.summarize({
            instructions: this.#instructions,
            prompt: renderForSummary(fresh, previous?.text),
            maxOutputTokens: this.#summaryMaxTokens,
            ...(this.#model && { model: this.#model }),
          });
    this.#cache = { covers: cut, hash: hashOf(older), text };
    const view = this.#view(messages, this.#cache);
    if (cost(view) <= budget) return view;
    // Still too long (a huge recent tool result): trim the recent part, keeping the summary.
    return fitWindow(view, budget, context.tokens, new Set([0]));
  }

  /** Where the verbatim tail starts: `keepRecent` from the end, moved back so no unit is split. */
  #cut(messages: readonly Message[]): number {
    let cut = Math.max(0, messages.length - this.keepRecent);
    for (const unit of groupUnits(messages)) {
      const first = unit.indices[0] as number;
      if (first < cut && unit.indices.some((i) => i >= cut)) cut = first;
    }
    return cut;
  }

  /**
   * The messages a summary up to `cut` covers. The latest user message is summarized with the rest
   * (so the summary stays valid when a newer one arrives) and also shown verbatim after it.
   */
  #older(messages: readonly Message[], cut: number): Message[] {
    return messages.slice(0, cut);
  }

  #view(messages: readonly Message[], summary: Cached): Message[] {
    const latest = latestUserIndex(messages);
    const head: Message[] = [{ role: "user", content: summaryMessage(summary.text) }];
    if (latest >= 0 && latest < summary.covers) head.push(messages[latest] as Message);
    return [...head, ...messages.slice(summary.covers)];
  }

  /** The cached summary if the transcript still begins with what it summarized. */
  #reusable(messages: readonly Message[]): Cached | undefined {
    const cached = this.#cache;
    if (!cached || cached.covers > messages.length) return undefined;
    return hashOf(this.#older(messages, cached.covers)) === cached.hash ? cached : undefined;
  }
}

/**
 * The message that carries a summary: the summarizer read tool results and pages, so its text is
 * data, fenced (core/prompt-fence.ts) like any other untrusted text in a prompt glassloop writes.
 */
export function summaryMessage(text: string): string {
  const fence = fenceFor("summary", [text]);
  return `${SUMMARY_PREFIX} ${fence.rule}\n${fence.wrap(text)}`;
}

/**
 * The transcript as plain text for the summarizer: no tool-call structure for the provider to
 * check, and each message fenced, so a tool result that writes "user: …" stays inside its fence.
 */
export function renderForSummary(messages: readonly Message[], previous?: string): string {
  const sections: DataSection[] = [];
  if (previous) sections.push({ heading: "Summary so far:", text: previous });
  for (const m of messages) {
    if (m.role === "assistant") {
      if (m.content) sections.push({ heading: "assistant:", text: m.content });
      for (const c of m.toolCalls ?? [])
        sections.push({ heading: `assistant called ${c.name} with:`, text: c.arguments });
    } else if (m.role === "tool") {
      sections.push({ heading: `${m.toolName} ${m.isError ? "failed" : "returned"}:`, text: m.content });
    } else {
      sections.push({ heading: `${m.role}:`, text: m.content });
    }
  }
  const lead = previous ? ["Extend the summary so far with the messages after it."] : [];
  return fencedPrompt("transcript", lead, sections);
}

function hashOf(messages: readonly Message[]): string {
  return createHash("sha256").update(JSON.stringify(messages)).digest("hex");
}
