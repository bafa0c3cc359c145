import type { AgentTool } from "./tool.js";

/**
 * Tools that come from outside the program (an MCP server) and may change while an agent lives.
 * The agent registers them, follows `onChange`, and closes the source in `agent.close()`.
 */
export interface ToolSource {
  /** A name for errors, e.g. the MCP server's name. */
  readonly name: string;
  /** The tools available now. */
  tools(): AgentTool<unknown>[];
  /** Calls `listener` after the source's tool list changed; returns an unsubscribe function. */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
  /**
   * Whether its tools may ask the person a question that pauses the run (`QuestionAsked`): a run
   * with such a source is stored, like one with a tool that needs approval, so it can wait.
   */
  readonly mayAsk?: boolean;
}
