import type { CliIO } from "./command.js";
import { type TrustedSequence, trustedSequence } from "./terminal-text.js";

/** Colors and spinners for one stream: on only for a TTY, and never when NO_COLOR is set. */
export interface Style {
  readonly color: boolean;
  readonly interactive: boolean;
  /** Whether a spinner may animate: a terminal, and NO_COLOR unset (docs/cli.md promises it). */
  readonly spinner: boolean;
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

// Each color is a pair of tokens a terminal stream turns into its escape sequences (terminal-text.ts).
const codes: Record<string, [TrustedSequence, TrustedSequence]> = {
  dim: ["dim", "normalIntensity"],
  bold: ["bold", "normalIntensity"],
  red: ["red", "defaultColor"],
  green: ["green", "defaultColor"],
  yellow: ["yellow", "defaultColor"],
  cyan: ["cyan", "defaultColor"],
};

/** The style for `stream`: plain text unless it is a terminal and NO_COLOR is unset or empty. */
export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Style {
  const interactive = stream.isTTY === true && env.TERM !== "dumb";
  const color = interactive && !env.NO_COLOR;
  // NO_COLOR users ask for plain output; a spinner's redrawn line is the least plain of all.
  const spinner = color;
  const paint = (name: keyof typeof codes) => {
    const [open, close] = codes[name] as [TrustedSequence, TrustedSequence];
    const [start, end] = [trustedSequence(open), trustedSequence(close)];
    return color ? (text: string) => `${start}${text}${end}` : (text: string) => text;
  };
  return {
    color,
    interactive,
    spinner,
    dim: paint("dim"),
    bold: paint("bold"),
    red: paint("red"),
    green: paint("green"),
    yellow: paint("yellow"),
    cyan: paint("cyan"),
  };
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A one-line spinner on a terminal; does nothing elsewhere, so piped output stays clean. */
export class Spinner {
  #timer: NodeJS.Timeout | undefined;
  #frame = 0;
  #label = "";

  constructor(
    private readonly stream: CliIO["stderr"],
    private readonly style: Style,
  ) {}

  start(label: string): void {
    if (!this.style.spinner) return;
    this.stop();
    this.#label = label;
    this.#draw();
    this.#timer = setInterval(() => this.#draw(), 80);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.stream.write(trustedSequence("clearLine"));
  }

  #draw(): void {
    const frame = FRAMES[this.#frame++ % FRAMES.length] as string;
    this.stream.write(
      `${trustedSequence("clearLine")}${this.style.cyan(frame)} ${this.style.dim(this.#label)}`,
    );
  }
}
