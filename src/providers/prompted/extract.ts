/**
 * Reads tool calls out of a model's free text, for models without native tool calling. A call is
 * a JSON object that names a tool, anywhere in the text: in a code fence, inside `<tool_call>`
 * tags, or surrounded by prose; several calls may be separate objects or one JSON array. The
 * extractor never throws: what looks like a call but cannot be read is reported as `invalid`,
 * with the reason, so it can go back to the model as feedback.
 */

/** A call read from the text; `arguments` is JSON text of an object (or of what the model sent). */
export interface ExtractedCall {
  kind: "call";
  name: string;
  arguments: string;
}

/** Something that looks like a call but cannot be read; `raw` is the text the model wrote. */
export interface InvalidExtractedCall {
  kind: "invalid";
  /** The tool name, when it could still be read. */
  name?: string;
  raw: string;
  reason: string;
}

/** What the extractor found: the calls in text order, and the prose around them. */
export interface Extraction {
  calls: (ExtractedCall | InvalidExtractedCall)[];
  /** The text without the calls (and the fences or tags that only wrapped them), trimmed. */
  text: string;
}

const NAME_KEYS = ["tool", "name", "tool_name"] as const;
const ARGUMENT_KEYS = ["arguments", "args", "parameters", "input"] as const;

// A start worth trying: an object that begins with a key, or an array that begins with one.
const CANDIDATE_START = /[{[]/g;
// Text that can only be an attempt at a call (used to report broken ones, not to find good ones).
const CALL_LIKE =
  /\{\s*"(?:tool|tool_name)"\s*:|\{\s*"type"\s*:\s*"tool_call"|\{\s*"name"\s*:\s*"[^"\\]*"\s*,\s*"(?:arguments|args|parameters|input)"\s*:/g;

/**
 * Finds the calls in `text`. `toolNames` are the tools the model was offered: an object that names
 * one of them counts as a call even without an `arguments` key.
 */
export function extractToolCalls(text: string, toolNames: readonly string[] = []): Extraction {
  const known = new Set(toolNames);
  const brackets = new Brackets(text);
  type Found = { start: number; end: number; calls: (ExtractedCall | InvalidExtractedCall)[] };
  const good: Found[] = [];

  for (const match of text.matchAll(CANDIDATE_START)) {
    const start = match.index;
    if (brackets.exhausted) break;
    // Spans are found in text order and never overlap: one comparison tells what is inside one.
    if (start < (good.at(-1)?.end ?? 0) || !startsLikeJson(text, start)) continue;
    const end = brackets.end(start);
    if (end < 0 || !brackets.spend(end - start)) continue;
    const value = parseJson(text.slice(start, end));
    if (value === undefined) continue;
    const calls = asCalls(value.parsed, known);
    if (calls) good.push({ start, end, calls });
  }

  const bad: Found[] = [];
  let next = 0; // the first good span that ends after the current position
  for (const match of text.matchAll(CALL_LIKE)) {
    const start = match.index;
    if (brackets.exhausted) break;
    while (next < good.length && (good[next] as Found).end <= start) next++;
    const following = good[next];
    if ((following && following.start <= start) || start < (bad.at(-1)?.end ?? 0)) continue;
    const end = brackets.end(start);
    // A broken call that is never closed must not swallow the calls after it.
    const raw = text.slice(start, end >= 0 ? end : (following?.start ?? text.length)).trimEnd();
    const name = /"(?:tool|name|tool_name)"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(raw)?.[1];
    const parsed = end < 0 || !brackets.spend(raw.length) ? undefined : parseJson(raw);
    const reason =
      end < 0
        ? "the JSON is not closed (a brace or bracket is missing)"
        : parsed === undefined
          ? `the JSON is not valid (${jsonError(raw)})`
          : "the object does not say which tool to call and with which arguments";
    bad.push({
      start,
      end: start + raw.length,
      calls: [{ kind: "invalid", ...(name && { name }), raw, reason }],
    });
  }

  const found = [...good, ...bad];
  found.sort((a, b) => a.start - b.start);
  return {
    calls: found.flatMap((f) => f.calls),
    text: prose(
      text,
      found.map((f) => [f.start, f.end]),
    ),
  };
}

/** A call as the text the model is asked to write (also how past calls are shown to it again). */
export function formatToolCall(name: string, args: string): string {
  let parsedArgs: unknown = args;
  try {
    parsedArgs = args.trim() === "" ? {} : JSON.parse(args);
  } catch {
    // Shown as the text it was.
  }
  return JSON.stringify({ tool: name, arguments: parsedArgs });
}

/** The calls a parsed JSON value stands for, or `undefined` when it is no call at all. */
function asCalls(value: unknown, known: Set<string>): ExtractedCall[] | undefined {
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    const calls = value.map((v) => asCall(v, known));
    return calls.every((c) => c !== undefined) ? (calls as ExtractedCall[]) : undefined;
  }
  const call = asCall(value, known);
  return call && [call];
}

function asCall(value: unknown, known: Set<string>): ExtractedCall | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  // OpenAI's shape, `{"function": {"name", "arguments"}}`, which models trained on it often write.
  if (record.function !== null && typeof record.function === "object" && !("name" in record))
    return asCall(record.function, known);
  const nameKey = NAME_KEYS.find((k) => typeof record[k] === "string" && record[k] !== "");
  if (nameKey === undefined) return undefined;
  const name = record[nameKey] as string;
  const argKey = ARGUMENT_KEYS.find((k) => k in record);
  const declared = record.type === "tool_call" || record.type === "function";
  if (argKey === undefined)
    return nameKey === "tool" || declared || known.has(name)
      ? { kind: "call", name, arguments: "{}" }
      : undefined;
  return { kind: "call", name, arguments: argumentsText(record[argKey]) };
}

/** Arguments as JSON text; a JSON object sent as a string (a common habit) is unwrapped. */
function argumentsText(args: unknown): string {
  if (typeof args === "string") {
    const inner = parseJson(args);
    if (inner && inner.parsed !== null && typeof inner.parsed === "object")
      return JSON.stringify(inner.parsed);
  }
  return JSON.stringify(args ?? {});
}

function startsLikeJson(text: string, start: number): boolean {
  let i = start + 1;
  while (i < text.length && /\s/.test(text[i] as string)) i++;
  const next = text[i];
  return text[start] === "{" ? next === '"' : next === "{";
}

/**
 * Where each bracket's JSON value ends, found with a stack: one scan settles every bracket it
 * passes outside a string, so most candidates cost nothing and pathological text (thousands of
 * unclosed braces) stays near linear. A work budget bounds what is left, so no text can make the
 * extractor hang: past it, the rest of the text is read as prose.
 */
class Brackets {
  readonly #ends = new Map<number, number>();
  #work: number;

  constructor(private readonly text: string) {
    this.#work = 50 * text.length + 1_000_000;
  }

  get exhausted(): boolean {
    return this.#work <= 0;
  }

  /** Charges `n` units of work (also used for JSON.parse); false once the budget is spent. */
  spend(n: number): boolean {
    this.#work -= n;
    return this.#work > 0;
  }

  /** The index just past the bracket that closes the one at `start`; -1 if never closed or mismatched. */
  end(start: number): number {
    const known = this.#ends.get(start);
    if (known !== undefined) return known;
    const { text } = this;
    const open: number[] = [];
    let inString = false;
    let i = start;
    for (; i < text.length; i++) {
      const ch = text[i];
      if (inString) {
        if (ch === "\\") i++;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === "{" || ch === "[") open.push(i);
      else if (ch === "}" || ch === "]") {
        const at = open.pop() as number;
        if (text[at] !== (ch === "}" ? "{" : "[")) {
          open.push(at);
          break;
        }
        this.#ends.set(at, i + 1);
        if (open.length === 0) break;
      }
    }
    this.spend(i - start + 1);
    // Still open at a mismatch or at the end of the text: none of these can close either.
    for (const at of open) this.#ends.set(at, -1);
    return this.#ends.get(start) as number;
  }
}

function parseJson(text: string): { parsed: unknown } | undefined {
  try {
    return { parsed: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return "unknown error";
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** `text` without the call spans, and without fences or tags left holding nothing. */
function prose(text: string, spans: [number, number][]): string {
  if (spans.length === 0) return text.trim();
  let out = "";
  let at = 0;
  for (const [start, end] of spans) {
    out += text.slice(at, start);
    at = end;
  }
  out += text.slice(at);
  return out
    .replace(/```[\w-]*[ \t]*\r?\n?\s*```/g, "")
    .replace(/<(tool_call|function_call|tool)>\s*<\/\1>/g, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
