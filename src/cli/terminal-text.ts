/**
 * The one way bytes reach a terminal. `main()` (and every `Printer`) wraps the process's stdout
 * and stderr with `terminalStream`, so whatever a command writes — an answer, a provider's error,
 * a model name from an Ollama server, an eval's case id — has its secrets scrubbed and its control
 * characters made visible (`visible`) on the way out, including the writes of a command added
 * tomorrow that never heard of either. OSC 52 (clipboard), OSC 0 (title), OSC 8 (links), CSI
 * (clear screen, cursor moves) and a bare carriage return all arrive as readable text.
 *
 * The CLI's own styling still reaches the terminal: `Style` and the spinners write *tokens*
 * (`trustedSequence`) that carry a random key made when this module loads. Untrusted text cannot
 * forge one: it never sees the key, and its own escape bytes are escaped like any other control.
 */
import { randomBytes } from "node:crypto";
import { createInterface, type Interface, type ReadLineOptions } from "node:readline";
import { redactingSink, type Sink, scrubberFor } from "../core/sink.js";
import { visible } from "./visible.js";

/** The escape sequences the CLI itself may send: its colors and the erase of a redrawn line. */
const SEQUENCES = {
  bold: "\u001b[1m",
  dim: "\u001b[2m",
  normalIntensity: "\u001b[22m",
  red: "\u001b[31m",
  green: "\u001b[32m",
  yellow: "\u001b[33m",
  cyan: "\u001b[36m",
  defaultColor: "\u001b[39m",
  /** Back to the start of the line and erase it: how a spinner or progress bar redraws. */
  clearLine: "\r\u001b[2K",
} as const;

/** The name of an escape sequence the CLI may write through a terminal stream. */
export type TrustedSequence = keyof typeof SEQUENCES;

const NAMES = Object.keys(SEQUENCES) as TrustedSequence[];
// NUL can never pass a terminal stream unescaped, so a token cannot be confused with printed text.
const KEY = randomBytes(12).toString("hex");
const TOKEN = new RegExp(`\\u0000${KEY}:(\\d+)\\u0000`, "g");

/** The token that a terminal stream turns into the escape sequence `name` (and only it). */
export function trustedSequence(name: TrustedSequence): string {
  return `\u0000${KEY}:${NAMES.indexOf(name)}\u0000`;
}

/**
 * `text` as a terminal shows it: every part but the CLI's own tokens scrubbed of secrets (of `env`
 * and every credential shape) with its control characters made visible (newline and tab kept),
 * and each token replaced by its escape sequence.
 */
export function terminalText(text: string, env: NodeJS.ProcessEnv): string {
  let out = "";
  let last = 0;
  for (const match of text.matchAll(TOKEN)) {
    out += untrusted(text.slice(last, match.index), env);
    out += SEQUENCES[NAMES[Number(match[1])] as TrustedSequence] ?? "";
    last = match.index + match[0].length;
  }
  return out + untrusted(text.slice(last), env);
}

/** How many columns `text` takes once printed: its tokens take none, its controls their escapes. */
export function printedWidth(text: string): number {
  return visible(text.replace(TOKEN, ""), "text").length;
}

// The terminal is a sink like any other: one per environment, its writer sees scrubbed text only.
const sinks = new WeakMap<object, Sink<string, string>>();

function untrusted(text: string, env: NodeJS.ProcessEnv): string {
  if (text === "") return "";
  let sink = sinks.get(env);
  if (!sink) {
    sink = redactingSink("terminal", scrubberFor(env), (clean: string) => visible(clean, "text"));
    sinks.set(env, sink);
  }
  return sink.write(text);
}

/** A stream a command can write to: `write` and `end` pass `terminalText`; the rest is the raw stream's. */
type Writable = NodeJS.WritableStream;

const rawOf = new WeakMap<object, Writable>();

/**
 * `stream` with every write passed through `terminalText`: what a command gets as `io.stdout` and
 * `io.stderr`. Wrapping a wrapped stream returns it unchanged. Everything but `write` and `end`
 * (`isTTY`, `columns`, events) is the raw stream's own.
 */
export function terminalStream<S extends Writable>(stream: S, env: NodeJS.ProcessEnv): S {
  if (rawOf.has(stream)) return stream;
  const write = (chunk: unknown, ...rest: unknown[]): boolean => {
    const text = typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
    // A string encoding argument ("utf8") is dropped: the text is a string by now.
    const callback = rest.find((r) => typeof r === "function") as (() => void) | undefined;
    return callback ? stream.write(terminalText(text, env), callback) : stream.write(terminalText(text, env));
  };
  const end = (...args: unknown[]): unknown => {
    const [chunk] = args;
    if (chunk !== undefined && typeof chunk !== "function") write(chunk);
    const callback = args.find((a) => typeof a === "function") as (() => void) | undefined;
    return callback ? stream.end(callback) : stream.end();
  };
  const wrapped = new Proxy(stream, {
    get(target, property) {
      if (property === "write") return write;
      if (property === "end") return end;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  rawOf.set(wrapped, stream);
  return wrapped;
}

/** Whether `stream` is a terminal stream (what the source scan and the tests check). */
export function isTerminalStream(stream: object): boolean {
  return rawOf.has(stream);
}

/**
 * A readline interface on a terminal stream: readline itself draws the line being edited (the
 * user's own keys) and needs the raw stream for its cursor moves, but the prompt and every
 * question pass `terminalText` like any other write. The only readline the CLI creates.
 */
export function terminalInterface(
  options: Omit<ReadLineOptions, "output"> & { output: Writable },
  env: NodeJS.ProcessEnv,
): Interface {
  const output = rawOf.get(options.output) ?? options.output;
  const rl = createInterface({ ...options, output });
  const setPrompt = rl.setPrompt.bind(rl);
  rl.setPrompt = (prompt: string) => setPrompt(terminalText(prompt, env));
  const question = rl.question.bind(rl) as (query: string, ...rest: unknown[]) => void;
  (rl as { question: (query: string, ...rest: unknown[]) => void }).question = (query, ...rest) =>
    question(terminalText(query, env), ...rest);
  return rl;
}
