import type { AgentSkill } from "../wire.js";

/** What the agent card says of one agent; every field has a default. */
export interface A2ACardOptions {
  /** Shown name (default: the agent's name). */
  name?: string;
  /** What the agent does (default: a line naming it). Public: never put instructions or secrets here. */
  description?: string;
  /** The agent's version (default `1.0.0`). */
  version?: string;
  /** Skills (default: one, from the description). */
  skills?: AgentSkill[];
  /** Who offers the agent. */
  provider?: { organization: string; url: string };
  /**
   * What only authenticated callers see (`GetExtendedAgentCard`): fields that replace the public
   * card's, fixed or per caller (the principal's id). The public card says an extended one
   * exists; a server without auth offers none (nobody there is authenticated).
   */
  extended?: A2AExtendedCard | ((principal: string) => A2AExtendedCard | Promise<A2AExtendedCard>);
}

/** The fields an extended agent card sets over the public one. */
export type A2AExtendedCard = Pick<A2ACardOptions, "name" | "description" | "version" | "skills">;

/** How callers authenticate, as the card announces it (what the server checks is serve's `auth`). */
export type A2AAuthScheme = "bearer" | { apiKeyHeader: string };

/** Options of the A2A routes (`createHandler({ a2a })`, `createA2AHandler`). */
export interface A2AServeOptions {
  /** The agent `/.well-known/agent-card.json` describes (default: the first agent). */
  defaultAgent?: string;
  /** The public origin the card's URLs use, behind a proxy (default: the request's origin). */
  publicUrl?: string;
  /** Card fields per agent name. */
  cards?: Readonly<Record<string, A2ACardOptions>>;
  /** The scheme the card announces when auth is on (default `bearer`). */
  authScheme?: A2AAuthScheme;
  /**
   * Longest a blocking `SendMessage` waits for the task to end or ask for input before it answers
   * with the task still working (default 5 minutes); the run goes on either way.
   */
  blockingWaitMs?: number;
}
