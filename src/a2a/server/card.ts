/**
 * The agent card of one served agent: its public face, readable without credentials. It names
 * the agent, its skills and the auth scheme callers must use, and where to send JSON-RPC in each
 * spelling; it never shows instructions, tools' code or context.
 */
import { protoCard } from "../v03-proto.js";
import { type AgentCard, RPC, type SecurityScheme } from "../wire.js";
import type { Call } from "./methods.js";
import type { A2AAuthScheme, A2AExtendedCard, A2AServeOptions } from "./options.js";
import { A2ARequestError, resultResponse } from "./rpc.js";

/** The origin the card's URLs use: `publicUrl` behind a proxy, else the request's own. */
export function baseOf(request: Request, options: A2AServeOptions): string {
  return options.publicUrl ?? new URL(request.url).origin;
}

/** The JSON-RPC endpoint of an agent under a base URL. */
export function endpointOf(base: string, agent: string): string {
  return `${base.replace(/\/+$/, "")}/a2a/${encodeURIComponent(agent)}`;
}

function schemesOf(scheme: A2AAuthScheme): { name: string; v1: SecurityScheme; v03: SecurityScheme } {
  if (scheme === "bearer")
    return {
      name: "bearer",
      v1: { httpAuthSecurityScheme: { scheme: "Bearer", description: "a token the server knows" } },
      v03: { type: "http", scheme: "bearer" },
    };
  return {
    name: "apiKey",
    v1: { apiKeySecurityScheme: { location: "header", name: scheme.apiKeyHeader } },
    v03: { type: "apiKey", in: "header", name: scheme.apiKeyHeader },
  };
}

/** The card of `agent`, its URLs under `base`; `open` when the server takes callers without credentials. */
export function agentCard(agent: string, base: string, open: boolean, options: A2AServeOptions): AgentCard {
  const given = options.cards?.[agent] ?? {};
  const description = given.description ?? `The glassloop agent "${agent}".`;
  const url = endpointOf(base, agent);
  const card: AgentCard = {
    name: given.name ?? agent,
    description,
    version: given.version ?? "1.0.0",
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      { url, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
    ],
    capabilities: {
      streaming: true,
      pushNotifications: options.push !== undefined,
      extendedAgentCard: !open && given.extended !== undefined,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: given.skills ?? [{ id: agent, name: given.name ?? agent, description, tags: [agent] }],
    ...(given.provider && { provider: given.provider }),
    url,
    protocolVersion: "0.3.0",
    preferredTransport: "JSONRPC",
    additionalInterfaces: [
      { url, transport: "JSONRPC" },
      { url, transport: "HTTP+JSON" },
    ],
  };
  if (!open) {
    const { name, v1, v03 } = schemesOf(options.authScheme ?? "bearer");
    // One object read by both spellings: 1.0 reads its one-of key, v0.3 its OpenAPI fields.
    card.securitySchemes = { [name]: { ...v1, ...v03 } };
    card.securityRequirements = [{ schemes: { [name]: { list: [] } } }];
    card.security = [{ [name]: [] }];
    if (given.extended !== undefined) card.supportsAuthenticatedExtendedCard = true;
  }
  return card;
}

/** The card an authenticated caller gets: the public one with the extended fields over it. */
export async function extendedCard(
  agent: string,
  base: string,
  principal: string,
  options: A2AServeOptions,
): Promise<AgentCard | undefined> {
  const extended = options.cards?.[agent]?.extended;
  if (extended === undefined) return undefined;
  const fields: A2AExtendedCard = typeof extended === "function" ? await extended(principal) : extended;
  const card = agentCard(agent, base, false, options);
  if (fields.name !== undefined) card.name = fields.name;
  if (fields.version !== undefined) card.version = fields.version;
  if (fields.description !== undefined) card.description = fields.description;
  if (fields.skills !== undefined) card.skills = fields.skills;
  return card;
}

/** `GetExtendedAgentCard`: only for authenticated callers, so never on a server without auth. */
export async function getExtendedCard(call: Call): Promise<Response> {
  const card = call.ctx.auth.open
    ? undefined
    : await extendedCard(call.agent, baseOf(call.request, call.options), call.principal, call.options);
  if (!card)
    throw new A2ARequestError(RPC.extendedCardNotConfigured, "this agent has no extended agent card");
  return resultResponse(call, call.version === "0.3" && call.binding === "rest" ? protoCard(card) : card);
}
