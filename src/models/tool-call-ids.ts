import type { Message, ToolCall } from "../core/vocabulary/messages.js";

/** What a provider accepts as a tool-call id, and how to make one up. */
export interface ToolCallIdRules {
  /** One allowed character, e.g. `/[a-zA-Z0-9_-]/`; every other character becomes `_`. */
  allowedChar: RegExp;
  /** Longest id the provider accepts. */
  maxLength: number;
  /** Prefix of ids made up for calls that had none. */
  prefix: string;
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
  const isValid = (id: string) => id.length > 0 && id.length <= rules.maxLength && allMatch(id, rules);
  if (!needsRewrite(messages, isValid)) return [...messages];

  // Valid ids keep their names, so they are reserved before anything is rewritten.
  const taken = new Set<string>();
  for (const m of messages) for (const call of callsOf(m)) if (isValid(call.id)) taken.add(call.id);
  const claim = (base: string): string => {
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
  return isValid(id) ? id : sanitize(id, rules);
}

function sanitize(id: string, rules: ToolCallIdRules): string {
  let out = "";
  for (const ch of id) out += rules.allowedChar.test(ch) ? ch : "_";
  if (out === "") out = `${rules.prefix}0`;
  return out.slice(0, rules.maxLength);
}

function allMatch(id: string, rules: ToolCallIdRules): boolean {
  for (const ch of id) if (!rules.allowedChar.test(ch)) return false;
  return true;
}

function callsOf(m: Message): ToolCall[] {
  return m.role === "assistant" ? (m.toolCalls ?? []) : [];
}
