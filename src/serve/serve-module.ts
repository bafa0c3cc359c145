import type { ServeAgentFactory } from "./agents.js";
import type { ServeOptions } from "./handler.js";

/**
 * What a module for `glassloop serve <module>` exports (as `default`, or `serve`): its agents as
 * factories, like a worker module's, plus handler options, and what to close at shutdown.
 */
export interface ServeModule {
  agents: Readonly<Record<string, ServeAgentFactory>>;
  /** Handler options besides the agents (auth, cors, limits, store, ...). */
  options?: Omit<ServeOptions, "agents">;
  /** Called once when the server stops. */
  close?: () => void | Promise<void>;
}

/** Declares a serve module; the identity function, for the types. */
export function defineServe(module: ServeModule): ServeModule {
  return module;
}
