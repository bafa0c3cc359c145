import { DeltaScrubber } from "../core/delta-scrub.js";
import type { AgentEvent } from "../core/vocabulary/events.js";
import type { RunUsage } from "../core/vocabulary/usage.js";
import { withoutImageBytes } from "../trace/images.js";
import { redactorFor } from "./failure.js";
import type { Printer } from "./printer.js";
import { Spinner } from "./style.js";
import { visible } from "./visible.js";

/** What the human view of a run shows. */
export interface RenderOptions {
  /** Print each exact request body as it is sent (to stderr). */
  showPrompt: boolean;
  /** Only the request bodies (for --json, whose stdout is the result alone). */
  quiet: boolean;
}

/**
 * Turns a run's events into terminal output: the answer streams to stdout; each tool call, its
 * arguments, a spinner while it runs and a short result go to stderr.
 */
export class RunRenderer {
  readonly #printer: Printer;
  readonly #options: RenderOptions;
  readonly #spinner: Spinner;
  #requests = 0;
  #streamedSteps = new Set<number>();
  #textShown = false;
  /** A streamed piece ended in `\r`: held back in case the next piece starts with `\n` (a CRLF). */
  #heldCr = false;
  /** Streamed pieces are scrubbed as one stream: a secret split across two is caught. */
  #deltas: DeltaScrubber | undefined;

  constructor(printer: Printer, options: RenderOptions) {
    this.#printer = printer;
    this.#options = options;
    this.#spinner = new Spinner(printer.io.stderr, printer.err);
  }

  /** Whether any answer text reached stdout (a terminal tool's output must then still be printed). */
  get textShown(): boolean {
    return this.#textShown;
  }

  /** Stops the spinner (before asking the user something). */
  pause(): void {
    this.#spinner.stop();
  }

  readonly onEvent = (given: AgentEvent): void => {
    this.#deltas ??= new DeltaScrubber(redactorFor(this.#printer.io.env));
    this.#deltas.push(given, this.#show);
  };

  readonly #show = (given: AgentEvent): void => {
    // Scrubbed before anything is clipped to fit a line: the terminal stream scrubs too, but a
    // secret cut in half by a clip (a model pads its arguments to place the cut) would pass it.
    const event = redactorFor(this.#printer.io.env).value(given);
    const p = this.#printer;
    const s = p.err;
    if (event.type === "model_request") {
      this.#requests++;
      if (!this.#options.showPrompt) return;
      this.#spinner.stop();
      const where = event.url ?? event.model;
      const retry = event.attempt > 1 ? `, attempt ${event.attempt}` : "";
      p.note(s.dim(`── request ${this.#requests} (step ${event.step}${retry}) → ${where}`));
      // Image and PDF bytes as a hash and size, as in the trace: megabytes of base64 help no one
      // reading a terminal, and every other byte is the body as sent.
      const shown = withoutImageBytes(event.body);
      if (shown !== event.body) p.note(s.dim("   (image and file bytes shown as sha256 and size)"));
      // JSON escapes C0 controls but not C1 or bidi ones; the body is still valid JSON after this.
      p.note(visible(JSON.stringify(shown)));
      return;
    }
    if (this.#options.quiet) return;
    switch (event.type) {
      case "step_start":
        this.#spinner.start("thinking…");
        return;
      case "model_retry": {
        // Shown as it happens: a run that waits on a retry must not look hung.
        this.#spinner.stop();
        const of = event.maxAttempts === undefined ? "" : `/${event.maxAttempts}`;
        p.note(
          s.yellow(`  ↻ retrying in ${(event.delayMs / 1000).toFixed(1)} s (${event.attempt}${of}): `) +
            oneLine(event.error),
        );
        this.#spinner.start("thinking…");
        return;
      }
      case "model_fallback": {
        // Shown as it happens: which model failed, why, and which one is asked instead.
        this.#spinner.stop();
        const to = event.to === undefined ? "no model left" : `trying ${event.to}`;
        p.note(s.yellow(`  ⇢ ${event.from} ${event.reason}, ${to}: `) + oneLine(event.error));
        this.#spinner.start("thinking…");
        return;
      }
      case "rate_limit_wait":
        this.#spinner.stop();
        p.note(
          s.dim(`  ⏳ ${event.key} ${event.limit} limit: waiting ${(event.waitMs / 1000).toFixed(1)} s`),
        );
        this.#spinner.start("thinking…");
        return;
      case "text_delta":
        this.#spinner.stop();
        this.#streamedSteps.add(event.step);
        this.#textShown = true;
        this.#answer(event.text);
        return;
      case "reasoning_dropped":
        this.#spinner.stop();
        p.note(
          s.dim(
            `  (left out ${plural(event.count, "reasoning part")} of ${event.from.join(", ")}: another provider made them)`,
          ),
        );
        return;
      case "model_response":
        this.#spinner.stop();
        this.#flushCr();
        if (event.reasoning?.length) p.note(s.dim(`  (reasoned: ${plural(event.reasoning.length, "part")})`));
        if (!this.#streamedSteps.has(event.step) && event.text) {
          this.#textShown = true;
          p.text(visible(event.text, "text"));
        }
        p.endLine();
        return;
      case "tool_call":
        this.#spinner.stop();
        // The name and arguments are the model's, the result the tool's: none may steer the terminal.
        p.note(
          `${s.cyan("→")} ${s.bold(visible(event.toolName))} ${s.dim(clip(visible(event.arguments || "{}"), 400))}`,
        );
        this.#spinner.start(`running ${visible(event.toolName)}…`);
        return;
      case "tool_result": {
        this.#spinner.stop();
        const summary = clip(visible(oneLine(event.content)), 160);
        const took = s.dim(` (${formatMs(event.durationMs)})`);
        if (event.status === "ok") p.note(`  ${s.green("←")} ${summary}${took}`);
        else p.note(`  ${s.red(`✗ ${event.status}:`)} ${summary}${took}`);
        return;
      }
      case "run_end":
      case "error":
        this.#spinner.stop();
        return;
      default:
        return;
    }
  };

  /** Streamed answer text, its control characters made visible; a CRLF split across pieces is a newline. */
  #answer(text: string): void {
    let piece = this.#heldCr ? `\r${text}` : text;
    this.#heldCr = piece.endsWith("\r");
    if (this.#heldCr) piece = piece.slice(0, -1);
    if (piece !== "") this.#printer.text(visible(piece, "text"));
  }

  /** A carriage return that no newline followed is shown as one. */
  #flushCr(): void {
    if (!this.#heldCr) return;
    this.#heldCr = false;
    this.#printer.text(visible("\r"));
  }

  /** Shows what the streams still hold and stops the spinner for good. */
  close(): void {
    this.#deltas?.end(this.#show);
    this.#spinner.stop();
  }
}

/** The closing line of a run: requests, tokens, tool calls, cost and time. */
export function formatUsage(usage: RunUsage): string {
  const tokens = usage.inputTokens + usage.outputTokens;
  const cost = usage.costUsd === undefined ? "cost unknown" : formatUsd(usage.costUsd);
  return [
    plural(usage.requests, "request"),
    `${thousands(tokens)} tokens (${thousands(usage.inputTokens)} in, ${thousands(usage.outputTokens)} out)`,
    plural(usage.toolCalls, "tool call"),
    cost,
    formatMs(usage.durationMs),
  ].join(" · ");
}

/** 12345 as `12,345`, without `toLocaleString` (its first call loads ICU data: tens of ms at exit). */
function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function formatUsd(usd: number): string {
  if (usd === 0) return "$0";
  return usd < 0.01 ? `$${usd.toFixed(6)}` : `$${usd.toFixed(4)}`;
}

/** Milliseconds as `12 ms` or `1.2 s`. */
export function formatMs(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The first line of `text`, with a marker when more followed. */
export function oneLine(text: string): string {
  const lines = text.trim().split("\n");
  return lines.length > 1 ? `${lines[0]} …(+${lines.length - 1} lines)` : (lines[0] ?? "");
}

/** `text` cut to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
