/**
 * Reads a remote agent's card and decides where to call it. The card is the peer's own claim:
 * it is validated, its text is cleaned and capped before any of it reaches a prompt, and the
 * endpoint it names must be on the card's own origin (or one the user allowed), so a card cannot
 * send the caller's credentials to another host.
 */
import { z } from "zod";
import { A2APeerError, readBounded } from "./peer-error.js";

/** What glassloop takes from a card. */
export interface PeerCard {
  name: string;
  description: string;
  skills: { id: string; name: string; description: string }[];
  /** The JSON-RPC endpoint chosen. */
  endpoint: string;
  /** The spelling that endpoint speaks. */
  version: "1.0" | "0.3";
  streaming: boolean;
}

// String lengths are bounded by the card's byte cap; long text is cut when it is read, not refused.
const card = z.looseObject({
  name: z.string(),
  description: z.string().default(""),
  supportedInterfaces: z
    .array(
      z.looseObject({
        url: z.string(),
        protocolBinding: z.string().optional(),
        protocolVersion: z.string().optional(),
      }),
    )
    .max(100)
    .optional(),
  url: z.string().optional(),
  protocolVersion: z.string().optional(),
  preferredTransport: z.string().optional(),
  capabilities: z.looseObject({ streaming: z.boolean().optional() }).optional(),
  skills: z
    .array(z.looseObject({ id: z.string(), name: z.string(), description: z.string().default("") }))
    .max(1000)
    .default([]),
});

/** Control characters and bidi overrides out, whitespace folded, at most `max` characters. */
export function cleanText(value: string, max: number): string {
  const folded = value
    .replace(/[\p{Cc}\p{Cf}]/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  return folded.length > max ? `${folded.slice(0, max - 1)}…` : folded;
}

/** The card URL for `url`: the URL itself when it names a `.json` file, else its well-known path. */
export function cardUrlOf(url: string): URL {
  const given = new URL(url);
  if (given.protocol !== "http:" && given.protocol !== "https:")
    throw new A2APeerError("card_invalid", `an A2A agent URL must be http(s), not ${given.protocol}`);
  if (given.pathname.endsWith(".json")) return given;
  const base = given.href.endsWith("/") ? given.href : `${given.href}/`;
  return new URL(".well-known/agent-card.json", base);
}

/** Fetches, bounds, validates and reads the card at `url`. */
export async function readCard(
  url: string,
  options: {
    fetch: typeof fetch;
    headers: Headers;
    maxBytes: number;
    allowedOrigins: readonly string[];
    signal: AbortSignal;
  },
): Promise<PeerCard> {
  const cardUrl = cardUrlOf(url);
  const response = await options.fetch(cardUrl, {
    headers: options.headers,
    signal: options.signal,
    redirect: "error",
  });
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new A2APeerError(
      "card_invalid",
      `the agent card at ${cardUrl.origin}${cardUrl.pathname} answered HTTP ${response.status}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(await readBounded(response, options.maxBytes, "the agent card"));
  } catch (error) {
    if (error instanceof A2APeerError) throw error;
    throw new A2APeerError("card_invalid", "the agent card is not JSON");
  }
  const parsed = card.safeParse(json);
  if (!parsed.success) throw new A2APeerError("card_invalid", "the agent card is not an A2A agent card");
  const c = parsed.data;
  const jsonRpc = (c.supportedInterfaces ?? []).filter(
    (i) => (i.protocolBinding ?? "JSONRPC").toUpperCase() === "JSONRPC",
  );
  const v1 = jsonRpc.find((i) => (i.protocolVersion ?? "").startsWith("1."));
  const v03 = jsonRpc.find((i) => (i.protocolVersion ?? "").startsWith("0.3"));
  const chosen: { url: string; version: "1.0" | "0.3" } | undefined = v1
    ? { url: v1.url, version: "1.0" }
    : v03
      ? { url: v03.url, version: "0.3" }
      : c.url && (c.preferredTransport ?? "JSONRPC").toUpperCase() === "JSONRPC"
        ? { url: c.url, version: "0.3" }
        : undefined;
  if (!chosen) throw new A2APeerError("card_invalid", "the agent card names no JSON-RPC endpoint");
  let endpoint: URL;
  try {
    endpoint = new URL(chosen.url, cardUrl);
  } catch {
    throw new A2APeerError("card_invalid", "the agent card's endpoint is not a URL");
  }
  const allowed = new Set([cardUrl.origin, ...options.allowedOrigins.map((o) => new URL(o).origin)]);
  if (!allowed.has(endpoint.origin) || (endpoint.protocol !== "http:" && endpoint.protocol !== "https:"))
    throw new A2APeerError(
      "card_origin",
      `the agent card at ${cardUrl.origin} names an endpoint on ${endpoint.origin}; list that origin in allowedOrigins to call it`,
    );
  return {
    name: cleanText(c.name, 100),
    description: cleanText(c.description, 1000),
    skills: c.skills.slice(0, 20).map((s) => ({
      id: cleanText(s.id, 100),
      name: cleanText(s.name, 100),
      description: cleanText(s.description, 300),
    })),
    endpoint: endpoint.href,
    version: chosen.version,
    streaming: c.capabilities?.streaming === true,
  };
}
