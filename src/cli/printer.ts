import type { CliIO } from "./command.js";
import { type Style, styleFor } from "./style.js";
import { terminalStream } from "./terminal-text.js";

/**
 * What a command prints, laid out: the answer to stdout, decorations to stderr, each stream
 * styled for what it is (a terminal or not). Its streams are terminal streams (terminal-text.ts),
 * which scrub secrets and make control characters visible, also when a command is run without `main`.
 */
export class Printer {
  readonly io: CliIO;
  readonly out: Style;
  readonly err: Style;
  /** stdout holds text not yet ended by a newline. */
  #openLine = false;
  /** Streamed answer text after its last whitespace, not printed yet (see `text`). */
  #held = "";

  constructor(io: CliIO) {
    this.io = {
      ...io,
      stdout: terminalStream(io.stdout, io.env),
      stderr: terminalStream(io.stderr, io.env),
    };
    this.out = styleFor(io.stdout, io.env);
    this.err = styleFor(io.stderr, io.env);
  }

  /**
   * Answer text, as it streams. The last word of what arrived so far is held back until the next
   * whitespace (or the end of the answer): a key a server splits across two deltas is still whole
   * when it is scrubbed.
   */
  text(piece: string): void {
    if (piece === "") return;
    this.#held += piece;
    const cut = lastWhitespace(this.#held);
    if (cut >= 0 || this.#held.length > MAX_HELD_CHARS) {
      const end = cut >= 0 ? cut + 1 : this.#held.length;
      this.#write(this.#held.slice(0, end));
      this.#held = this.#held.slice(end);
    }
  }

  #write(text: string): void {
    if (text === "") return;
    this.io.stdout.write(text);
    this.#openLine = !text.endsWith("\n");
  }

  /** A whole line of answer output. */
  line(text: string): void {
    this.endLine();
    this.io.stdout.write(`${text}\n`);
  }

  /** A line of decoration (tool calls, usage, notes) on stderr, after any open answer line. */
  note(text: string): void {
    this.endLine();
    this.io.stderr.write(`${text}\n`);
  }

  /** Ends an open answer line so what follows starts on its own line. */
  endLine(): void {
    this.#write(this.#held);
    this.#held = "";
    if (!this.#openLine) return;
    this.io.stdout.write("\n");
    this.#openLine = false;
  }
}

/** A "word" longer than this is printed anyway: no secret is that long, and output must flow. */
const MAX_HELD_CHARS = 4096;

function lastWhitespace(text: string): number {
  for (let i = text.length - 1; i >= 0; i--) if (/\s/.test(text[i] as string)) return i;
  return -1;
}
