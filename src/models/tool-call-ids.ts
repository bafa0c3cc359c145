import { createHash } from "node:crypto";
import type { Message, ToolCall } from "../core/vocabulary/messages.js";

/** What a provider accepts as a tool-call id, and how to make one up. */
export interface ToolCallIdRules {
  /** One allowed character, e.g. `/[a-zA-Z0-9_-]/`; every other character becomes `_`. */
  allowedChar: RegExp;
  /** Longest id the provider accepts. */
  maxLength: number;
  /** Prefix of ids made up for calls that had none. */
  prefix: string;
  /**
   * Every id must have exactly this many characters (Mistral: 9 of `[a-zA-Z0-9]`). Ids that do not
   * fit are replaced by a digest of the original in the allowed alphabet, so the same call gets
   * the same id on every request.
   */
  fixedLength?: number;
}

/** Anthropic's rule: ids must match `^[a-zA-Z0-9_-]+$`. */
export const ANTHROPIC_TOOL_CALL_IDS: ToolCallIdRules = {
  allowedChar: /[a-zA-Z0-9_-]/,
  maxLength: 64,
  prefix: "toolu_gl_",
};

/**
 * A copy of `messages` whose tool-call ids all follow `rules`, for a transcript that another
 * provider (or a hand-written history) produced. Valid ids are kept as they are; an invalid one is
 * rewritten, an empty or repeated one replaced by a fresh one, and each tool result follows its
 * call, so pairs stay pairs. The mapping depends only on the transcript, so every request of a run
 * sends the same ids for the same calls.
 */
export function normalizeToolCallIds(messages: readonly Message[], rules: ToolCallIdRules): Message[] {
  const isValid = (id: string) =>
    id.length > 0 &&
    id.length <= rules.maxLength &&
    (rules.fixedLength === undefined || id.length === rules.fixedLength) &&
    allMatch(id, rules);
  if (!needsRewrite(messages, isValid)) return [...messages];

  // Valid ids keep their names, so they are reserved before anything is rewritten.
  const taken = new Set<string>();
  for (const m of messages) for (const call of callsOf(m)) if (isValid(call.id)) taken.add(call.id);
  const claim = (base: string): string => {
    const { fixedLength } = rules;
    if (fixedLength !== undefined) {
      let id = digestId(base, 1, fixedLength, rules);
      for (let n = 2; taken.has(id); n++) id = digestId(base, n, fixedLength, rules);
      taken.add(id);
      return id;
    }
    let id = base;
    for (let n = 2; taken.has(id); n++) {
      const suffix = `_${n}`;
      id = base.slice(0, rules.maxLength - suffix.length) + suffix;
    }
    taken.add(id);
    return id;
  };

  // Calls awaiting a result, by original id, oldest first: results pair with them in order.
  const pending = new Map<string, string[]>();
  const used = new Set<string>();
  let fresh = 0;
  const out: Message[] = [];
  for (const m of messages) {
    if (m.role === "assistant" && m.toolCalls?.length) {
      const toolCalls: ToolCall[] = m.toolCalls.map((call) => {
        let id: string;
        if (isValid(call.id) && !used.has(call.id)) id = call.id;
        else if (call.id === "" || used.has(call.id)) id = claim(`${rules.prefix}${++fresh}`);
        else id = claim(sanitize(call.id, rules));
        used.add(id);
        const queue = pending.get(call.id) ?? [];
        queue.push(id);
        pending.set(call.id, queue);
        return { ...call, id };
      });
      out.push({ ...m, toolCalls });
    } else if (m.role === "tool") {
      const id = pending.get(m.toolCallId)?.shift() ?? orphanId(m.toolCallId, isValid, rules);
      out.push({ ...m, toolCallId: id });
    } else {
      out.push(m);
    }
  }
  return out;
}

function needsRewrite(messages: readonly Message[], isValid: (id: string) => boolean): boolean {
  const seen = new Set<string>();
  for (const m of messages) {
    for (const call of callsOf(m)) {
      if (!isValid(call.id) || seen.has(call.id)) return true;
      seen.add(call.id);
    }
    if (m.role === "tool" && !isValid(m.toolCallId)) return true;
  }
  return false;
}

/** A result whose call is not in the transcript: still made valid, though it pairs with nothing. */
function orphanId(id: string, isValid: (id: string) => boolean, rules: ToolCallIdRules): string {
  if (isValid(id)) return id;
  return rules.fixedLength === undefined ? sanitize(id, rules) : digestId(id, 1, rules.fixedLength, rules);
}

/** The characters of the allowed alphabet that a digest id is drawn from (letters and digits). */
const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A `length`-character id derived from `base` (and `n`, to step past a taken one). */
function digestId(base: string, n: number, length: number, rules: ToolCallIdRules): string {
  const alphabet = [...ALPHANUMERIC].filter((ch) => rules.allowedChar.test(ch));
  const bytes = createHash("sha256").update(`${base}\u0000${n}`).digest();
  let out = "";
  for (let i = 0; out.length < length; i++) out += alphabet[(bytes[i % bytes.length] ?? 0) % alphabet.length];
  return out;
}

function sanitize(id: string, rules: ToolCallIdRules): string {
  let out = "";
  for (const ch of id) out += rules.allowedChar.test(ch) ? ch : "_";
  if (out === "") out = `${rules.prefix}0`;
  return out.slice(0, rules.maxLength);
}

/** Each rules' whole-id pattern, made once: one match per id, not one per character (every request checks every id). */
const wholeIds = new WeakMap<ToolCallIdRules, RegExp>();

function allMatch(id: string, rules: ToolCallIdRules): boolean {
  let whole = wholeIds.get(rules);
  if (!whole) {
    // The class's own flags, less the stateful ones (`test` would move on from `lastIndex`) and `m`
    // (its `^` and `$` would match at each line). A non-capturing group around a valid pattern is
    // valid with a subset of its flags, so this cannot throw.
    whole = new RegExp(`^(?:${rules.allowedChar.source})*$`, rules.allowedChar.flags.replace(/[gym]/g, ""));
    wholeIds.set(rules, whole);
  }
  return whole.test(id);
}

function callsOf(m: Message): ToolCall[] {
  return m.role === "assistant" ? (m.toolCalls ?? []) : [];
}
