import { ConfigError } from "../../../core/errors.js";
import type { FilePart, ImagePart } from "../../../core/vocabulary/messages.js";
import type { GuardrailVerdict, InputGuardrail, OutputGuardrail, ToolGuardrail } from "../guardrail.js";
import { stringsIn } from "./strings.js";

/** Options of `urlAllowList`. */
export interface UrlAllowListOptions {
  /**
   * The URLs allowed, as prefixes: `https://api.example.com` (that origin, any path),
   * `https://docs.example.com/v2` (that origin, `/v2` and below), `https://*.example.com` (the
   * subdomains of example.com, not example.com itself). Scheme, host and port must match; a URL
   * with a user name or password never does.
   */
  allow: readonly string[];
  /** The tools its tool guardrail watches, by name (default: all). */
  tools?: readonly string[];
}

/** The URL allow-list at each place a URL can leave or enter: add the parts you want to `guardrails`. */
export interface UrlAllowList {
  /** Image and file parts of the run's input fetched by URL (a tripwire: the input cannot be corrected). */
  input: InputGuardrail;
  /** Every URL in a tool call's arguments (the HTTP tool's `url`, any other), and image and file parts of its result. */
  tool: ToolGuardrail;
  /** Links in the final answer (a rendered `![](https://…?q=secret)` leaks what it carries). */
  output: OutputGuardrail;
}

/** A URL in text: a scheme, `://`, and what follows up to a space, a quote or a closing bracket. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`\\)\]}]+/gi;

/** The allow-list's rule alone, for a caller that checks URLs outside a run (the HTTP server's file parts). */
export function urlAllowedBy(allow: readonly string[]): (url: string) => boolean {
  const rules = allow.map(parseRule);
  return (url) => urlAllowed(url, rules);
}

/**
 * Guardrails that let only allowed URLs through: those a tool is asked to fetch, the image and
 * file parts a provider would fetch (in the input and in tool results), and links in the answer.
 */
export function urlAllowList(options: UrlAllowListOptions): UrlAllowList {
  const rules = options.allow.map(parseRule);
  const allowed = (text: string) => urlAllowed(text, rules);
  const refusedIn = (texts: readonly string[]) => refusedUrls(texts, allowed);
  const partsRefused = (parts: readonly (ImagePart | FilePart)[]) =>
    parts.flatMap((p) => (p.url !== undefined && !allowed(p.url) ? [p.url] : []));
  return {
    input: {
      name: "url-allow-list",
      check(input) {
        const refused = partsRefused([...input.images, ...input.files]);
        return refused.length === 0
          ? { action: "allow" }
          : {
              action: "tripwire",
              reason: `the input has parts fetched from URLs not allowed: ${hosts(refused)}`,
            };
      },
    },
    tool: {
      name: "url-allow-list",
      ...(options.tools && { tools: options.tools }),
      before(call) {
        const refused = refusedIn([call.arguments, ...stringsIn(call.args)]);
        return refusedVerdict(refused, "the call uses URLs that are not allowed");
      },
      after(result) {
        const refused = partsRefused([...result.images, ...result.files]);
        return refusedVerdict(
          refused,
          "the result has parts fetched from URLs that are not allowed, so it was withheld",
        );
      },
    },
    output: {
      name: "url-allow-list",
      check({ output }) {
        const texts = typeof output === "string" ? [output] : stringsIn(output);
        return refusedVerdict(
          refusedIn(texts),
          "your answer links to URLs that are not allowed; leave those links out",
        );
      },
    },
  };
}

function refusedVerdict(refused: readonly string[], why: string): GuardrailVerdict {
  if (refused.length === 0) return { action: "allow" };
  return { action: "reject", message: `Refused: ${why} (${hosts(refused)}).` };
}

/** The hosts of refused URLs, for a message: never the whole URL (its query may carry what it leaks). */
function hosts(urls: readonly string[]): string {
  const names = urls.map((u) =>
    URL.canParse(u) ? new URL(u).host || new URL(u).protocol : "an unreadable URL",
  );
  return [...new Set(names)].slice(0, 5).join(", ");
}

function refusedUrls(texts: readonly string[], allowed: (url: string) => boolean): string[] {
  const refused: string[] = [];
  for (const text of texts)
    for (const match of text.matchAll(URL_IN_TEXT)) {
      const url = match[0].replace(/[.,;:!?]+$/, "");
      if (!allowed(url)) refused.push(url);
    }
  return refused;
}

interface Rule {
  protocol: string;
  /** Host with port, lowercase; for a wildcard, the parent domain. */
  host: string;
  wildcard: boolean;
  path: string;
}

function parseRule(entry: string): Rule {
  const wildcard = /^[a-z][a-z0-9+.-]*:\/\/\*\./i.test(entry);
  const text = wildcard ? entry.replace("*.", "") : entry;
  if (!URL.canParse(text)) throw new ConfigError(`urlAllowList: ${JSON.stringify(entry)} is not a URL`);
  const url = new URL(text);
  if (url.username || url.password || url.search || url.hash)
    throw new ConfigError(
      `urlAllowList: ${JSON.stringify(entry)} must be a scheme, host and optional path only`,
    );
  return { protocol: url.protocol, host: url.host, wildcard, path: url.pathname };
}

/** Whether `text` is a URL one of `rules` allows (parsed as a browser would: `allowed.com@evil.com` is evil.com). */
function urlAllowed(text: string, rules: readonly Rule[]): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  if (url.username || url.password) return false;
  return rules.some((rule) => {
    if (url.protocol !== rule.protocol) return false;
    const hostOk = rule.wildcard ? url.host.endsWith(`.${rule.host}`) : url.host === rule.host;
    if (!hostOk) return false;
    const { path } = rule;
    if (path === "/" || url.pathname === path) return true;
    return url.pathname.startsWith(path.endsWith("/") ? path : `${path}/`);
  });
}
