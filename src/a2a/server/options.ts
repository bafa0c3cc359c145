import type { AgentSkill } from "../wire.js";
import type { A2APushStore } from "./push-store.js";
import type { A2ATaskHistory } from "./task-history.js";

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
  /**
   * Where each task's history lives (default: in the serve log's SQLite file, beside the runs;
   * in memory over any other log).
   */
  history?: A2ATaskHistory;
  /**
   * Push notifications: callers register webhooks for their tasks and the server POSTs each change
   * of state and each artifact there. Off unless set (`push: {}` takes every default).
   */
  push?: A2APushOptions;
}

/** Push notifications: which webhooks the server calls, and how hard it tries. */
export interface A2APushOptions {
  /**
   * Webhook URLs allowed, as URL prefixes (the URL allow-list's rule: `https://hooks.example.com`,
   * `https://*.example.com`). Default: any https URL. Either way the address a webhook resolves
   * to must be public unless `allowPrivate`.
   */
  allow?: readonly string[];
  /** Let webhooks reach loopback, private and link-local addresses (default false). */
  allowPrivate?: boolean;
  /** Longest one POST may take (default 5 s). */
  timeoutMs?: number;
  /** Tries per notification, on a network error, a timeout, 429 or 5xx (default 3; never on other answers). */
  attempts?: number;
  /** Configs per task (default 10). */
  maxConfigsPerTask?: number;
  /** Configs per caller over all tasks (default 100). */
  maxConfigsPerCaller?: number;
  /**
   * Where configs live (default: in the serve log's SQLite file, followed again when a server
   * starts; in memory over any other log, forgotten on restart).
   */
  store?: A2APushStore;
  /** Each notification's outcome (default: failures are logged with the webhook's host only). */
  onDelivery?: (delivery: A2APushDelivery) => void;
}

/** What became of one push notification. */
export type A2APushDelivery =
  | { outcome: "delivered"; taskId: string; configId: string; host: string; status: number; attempts: number }
  /** Not sent: the webhook's address is not one this server calls, or it answered with a redirect. */
  | { outcome: "refused"; taskId: string; configId: string; host: string; reason: string }
  /** Sent and failed every try (`status` of the last answer, if there was one). */
  | {
      outcome: "failed";
      taskId: string;
      configId: string;
      host: string;
      attempts: number;
      reason: string;
      status?: number;
    };
