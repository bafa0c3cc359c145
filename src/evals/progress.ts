import { trustedSequence } from "../cli/terminal-text.js";
import type { EvalEvent } from "./events.js";

/** Where the progress bar draws; only a terminal gets one. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/**
 * A one-line progress bar for `glassloop eval` on a terminal: trials done, passes, dollars.
 * Anywhere else (a pipe, CI logs) it draws nothing, so the output stays clean.
 */
export class ProgressBar {
  #drawn = false;
  #passed = 0;

  constructor(private readonly stream: ProgressStream) {}

  get active(): boolean {
    return this.stream.isTTY === true;
  }

  /** The listener: redraws on every finished trial. */
  readonly onEvent = (event: EvalEvent): void => {
    if (!this.active) return;
    if (event.type === "eval_start") this.#draw(0, event.trials, 0);
    if (event.type === "trial_end") {
      if (event.trial.pass) this.#passed++;
      this.#draw(event.done, event.total, event.spentUsd);
    }
  };

  /** Clears the bar before the report prints. */
  clear(): void {
    if (!this.#drawn) return;
    this.stream.write(trustedSequence("clearLine"));
    this.#drawn = false;
  }

  #draw(done: number, total: number, spent: number): void {
    const width = Math.max(10, Math.min(40, (this.stream.columns ?? 80) - 40));
    const filled = total === 0 ? width : Math.round((done / total) * width);
    const bar = `${"█".repeat(filled)}${"░".repeat(width - filled)}`;
    const money = spent > 0 ? ` · $${spent.toFixed(4)}` : "";
    this.stream.write(
      `${trustedSequence("clearLine")}${bar} ${done}/${total} trials · ${this.#passed} passed${money}`,
    );
    this.#drawn = true;
  }
}
