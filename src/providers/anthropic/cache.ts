import type { AnthropicCacheControl, AnthropicRequestBlock, AnthropicRequestBody } from "./wire.js";

/**
 * Where glassloop puts Anthropic prompt-cache breakpoints (`cache_control`). Each one caches the
 * prefix up to it; Anthropic allows four. By default three: the last tool (caches the tools), the
 * system prompt (tools and system), and the last block of the last message (the whole
 * conversation so far, which the next step of the loop sends again and reads from the cache).
 */
export interface AnthropicCachePolicy {
  /** A breakpoint on the last tool definition. */
  tools: boolean;
  /** A breakpoint on the system prompt. */
  system: boolean;
  /** A breakpoint on the last block of the last message. */
  lastMessage: boolean;
}

/** The default policy: every breakpoint on. */
export const ANTHROPIC_CACHE_DEFAULT: Readonly<AnthropicCachePolicy> = Object.freeze({
  tools: true,
  system: true,
  lastMessage: true,
});

const EPHEMERAL: AnthropicCacheControl = Object.freeze({ type: "ephemeral" }) as AnthropicCacheControl;

/** Adds the policy's breakpoints to a finished body (in place: the body is not sent yet). */
export function placeCacheBreakpoints(body: AnthropicRequestBody, policy: AnthropicCachePolicy): void {
  const lastTool = body.tools?.at(-1);
  if (policy.tools && lastTool) lastTool.cache_control = { ...EPHEMERAL };
  if (policy.system && body.system !== undefined && body.system !== "") {
    const text = typeof body.system === "string" ? body.system : undefined;
    if (text !== undefined) body.system = [{ type: "text", text, cache_control: { ...EPHEMERAL } }];
  }
  const last = body.messages.at(-1);
  if (policy.lastMessage && last) {
    if (typeof last.content === "string") {
      last.content = [{ type: "text", text: last.content, cache_control: { ...EPHEMERAL } }];
    } else {
      // Thinking blocks cannot carry a breakpoint; the last block that can takes it.
      const target = [...last.content].reverse().find(canMark);
      if (target) target.cache_control = { ...EPHEMERAL };
    }
  }
}

function canMark(block: AnthropicRequestBlock): boolean {
  return block.type !== "thinking" && block.type !== "redacted_thinking";
}
