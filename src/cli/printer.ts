import type { CliIO } from "./command.js";
import { scrubSecrets } from "./failure.js";
import { type Style, styleFor } from "./style.js";

/**
 * Everything a command prints goes through here: the answer to stdout, decorations to stderr,
 * each stream styled for what it is (a terminal or not), and every secret of the environment
 * scrubbed as a last guard.
 */
export class Printer {
  readonly out: Style;
  readonly err: Style;
  /** stdout holds text not yet ended by a newline. */
  #openLine = false;

  constructor(readonly io: CliIO) {
    this.out = styleFor(io.stdout, io.env);
    this.err = styleFor(io.stderr, io.env);
  }

  /** Answer text, as it streams. */
  text(piece: string): void {
    if (piece === "") return;
    this.io.stdout.write(scrubSecrets(piece, this.io.env));
    this.#openLine = !piece.endsWith("\n");
  }

  /** A whole line of answer output. */
  line(text: string): void {
    this.endLine();
    this.io.stdout.write(`${scrubSecrets(text, this.io.env)}\n`);
  }

  /** A line of decoration (tool calls, usage, notes) on stderr, after any open answer line. */
  note(text: string): void {
    this.endLine();
    this.io.stderr.write(`${scrubSecrets(text, this.io.env)}\n`);
  }

  /** Ends an open answer line so what follows starts on its own line. */
  endLine(): void {
    if (!this.#openLine) return;
    this.io.stdout.write("\n");
    this.#openLine = false;
  }
}
