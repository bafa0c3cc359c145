import { Agent } from "../agent/agent.js";
import type { AgentConfig, AgentConfigWithoutOutput } from "../agent/agent-config.js";
import type { Store } from "../store/store.js";
import { ServeConfigError } from "./errors.js";

/**
 * How the server makes one named agent: called for each run (and each resume of it), so hidden
 * context and live handles stay in the server and are never stored. The same shape as a worker
 * module's factories (`defineWorker` in `glassloop/scale`).
 */
export type ServeAgentFactory = () => unknown;

/** An agent as `GET /api/agents` lists it. */
export interface AgentInfo {
  name: string;
  description?: string;
  model: string;
  tools: { name: string; description: string; needsApproval: boolean }[];
}

/** The served agents by name; each factory is checked when it is first called. */
export class AgentTable {
  readonly names: string[];
  readonly #factories: Record<string, ServeAgentFactory>;
  readonly #store: Store;
  readonly #info = new Map<string, AgentInfo>();

  constructor(factories: Record<string, ServeAgentFactory>, store: Store) {
    if (typeof factories !== "object" || factories === null || Object.keys(factories).length === 0)
      throw new ServeConfigError("createHandler needs agents: { name: () => AgentConfig }, at least one");
    for (const [name, factory] of Object.entries(factories)) {
      if (typeof factory !== "function")
        throw new ServeConfigError(`agents.${name} must be a function that returns the agent's config`);
      if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name))
        throw new ServeConfigError(`agent name ${JSON.stringify(name)} must match [A-Za-z0-9_.-]{1,64}`);
    }
    this.#factories = factories;
    this.names = Object.keys(factories);
    this.#store = store;
  }

  has(name: string): boolean {
    return Object.hasOwn(this.#factories, name);
  }

  /** A fresh agent for one run, on the server's store whatever the factory's config says. */
  async make(name: string): Promise<Agent<unknown, unknown>> {
    const factory = this.#factories[name];
    if (!factory) throw new ServeConfigError(`no agent named ${JSON.stringify(name)}`);
    const config = (await factory()) as AgentConfig<unknown, unknown> | null;
    if (typeof config !== "object" || config === null || !("model" in config))
      throw new ServeConfigError(
        `agents.${name}() must return an agent config ({ model, instructions, tools, ... })`,
      );
    // Typed as without output only to pick a constructor overload: the config is passed on as given.
    return new Agent({ name, ...config, store: this.#store } as AgentConfigWithoutOutput<unknown, unknown>);
  }

  /** What a client may know of an agent (never its instructions or context). */
  async info(name: string): Promise<AgentInfo> {
    const known = this.#info.get(name);
    if (known) return known;
    const agent = await this.make(name);
    try {
      const info: AgentInfo = {
        name,
        model: agent.model.id,
        tools: agent.registry.list().map((t) => ({
          name: t.name,
          description: t.description,
          needsApproval: t.needsApproval !== undefined && t.needsApproval !== false,
        })),
      };
      this.#info.set(name, info);
      return info;
    } finally {
      await agent.close();
    }
  }
}
