import type { AgentConfig } from "../agent/agent-config.js";

/**
 * How a worker makes one named agent: called for each run (and each replay of it) in the worker's
 * process, so the hidden context and live handles (DB clients, keys, MCP connections) come from
 * the worker and are never stored. The run's durability replaces the config's `store`.
 */
export type AgentFactory = () => AnyAgentConfig | Promise<AnyAgentConfig>;

/** An agent's config whatever its context and output types: the worker only passes it to `Agent`. */
// biome-ignore lint/suspicious/noExplicitAny: the context and output types are the module author's, and AgentConfig is invariant in both.
export type AnyAgentConfig = AgentConfig<any, any>;

/** What a worker module exports (as `default` or `worker`): its agents by name, and what to close at shutdown. */
export interface WorkerModule {
  agents: Record<string, AgentFactory>;
  /** Called once when the worker stops, after its last run (close pools, MCP servers). */
  close?: () => void | Promise<void>;
}

/** Declares a worker module; the identity function, for the types. */
export function defineWorker(module: WorkerModule): WorkerModule {
  return module;
}
