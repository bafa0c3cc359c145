/**
 * Remote A2A agents as a tool source: one tool per agent (`a2aAgent`'s), read from their cards at
 * the start and, with `refreshMs`, read again on that schedule, so an agent whose card changed
 * (another name, description or skills) is offered as it now says. A card that cannot be read
 * again keeps the tool as it was; what a card says is still fenced as the peer's words.
 */
import type { AgentTool } from "../../tools/tool.js";
import type { ToolSource } from "../../tools/tool-source.js";
import { type A2AAgentOptions, a2aAgent } from "./a2a-agent.js";

/** Options of `a2aToolSource`: `a2aAgent`'s for every agent (names come from each card), and the refresh. */
export interface A2AToolSourceOptions extends Omit<A2AAgentOptions, "name" | "description"> {
  /** Read the cards again this often (ms; default: never). */
  refreshMs?: number;
  /** The source's name in errors (default `a2a`). */
  name?: string;
}

/** Reads the card at each URL and returns the agents as a `ToolSource` (`toolSources: [...]`). */
export async function a2aToolSource(
  urls: readonly string[],
  options: A2AToolSourceOptions = {},
): Promise<ToolSource> {
  const { refreshMs, name = "a2a", ...agentOptions } = options;
  const read = (url: string) => a2aAgent(url, agentOptions) as Promise<AgentTool<unknown>>;
  let tools = await Promise.all(urls.map(read));
  const listeners = new Set<() => void>();
  let timer: NodeJS.Timeout | undefined;
  let refreshing = false;

  const refresh = async () => {
    if (refreshing) return;
    refreshing = true;
    try {
      const next = await Promise.all(
        urls.map((url, i) => read(url).catch(() => tools[i] as AgentTool<unknown>)),
      );
      const changed = next.some(
        (t, i) => t.name !== tools[i]?.name || t.description !== tools[i]?.description,
      );
      if (!changed) return;
      tools = next;
      for (const listener of listeners) listener();
    } finally {
      refreshing = false;
    }
  };
  if (refreshMs !== undefined && refreshMs > 0) {
    timer = setInterval(() => void refresh(), refreshMs);
    timer.unref();
  }

  return {
    name,
    tools: () => [...tools],
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      if (timer) clearInterval(timer);
      listeners.clear();
    },
  };
}
