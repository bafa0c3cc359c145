import type { AgentConfig } from "../agent/agent-config.js";

/**
 * How a worker makes one named agent: called for each run (and each replay of it) in the worker's
 * process, so the hidden context and live handles (DB clients, keys, MCP connections) come from
 * the worker and are never stored. The run's durability replaces the config's `store`.
 * Its context and output types are the module author's; `defineWorker` checks each factory.
 */
export type AgentFactory = () => unknown;

/**
 * An agent's config whatever its context and output types: the worker only passes it to `Agent`.
 * (`AgentConfig` is invariant in both, so no one config type holds them all; the worker reads a
 * factory's result as this after `defineWorker` checked it.)
 */
export type AnyAgentConfig = AgentConfig<unknown, unknown>;

/** The factory `F` as written, when it makes an AgentConfig (of any context and output); else never. */
export type CheckedFactory<F> = F extends () => infer R
  ? Awaited<R> extends AgentConfig<infer _C, infer _O>
    ? F
    : never
  : never;

/** What a worker module exports (as `default` or `worker`): its agents by name, and what to close at shutdown. */
export interface WorkerModule<A extends Record<string, AgentFactory> = Record<string, AgentFactory>> {
  /** Checked per factory when written through `defineWorker`. */
  agents: { [K in keyof A]: CheckedFactory<A[K]> };
  /** Called once when the worker stops, after its last run (close pools, MCP servers). */
  close?: () => void | Promise<void>;
}

/** Declares a worker module; the identity function, for the types. */
export function defineWorker<A extends Record<string, AgentFactory>>(module: WorkerModule<A>): WorkerModule {
  return module as unknown as WorkerModule;
}
