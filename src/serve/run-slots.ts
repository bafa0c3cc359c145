import { ServeRequestError } from "./errors.js";

/** The runs each caller has going at once, held under the server's per-caller limit. */
export class RunSlots {
  readonly #active = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Takes a slot for `principal`, or refuses with 429 when all of its slots are taken. */
  reserve(principal: string): void {
    if ((this.#active.get(principal) ?? 0) >= this.max)
      throw new ServeRequestError(
        429,
        "too_many_runs",
        `at most ${this.max} runs may run at once per caller; wait for one to end`,
        { headers: { "retry-after": "5" } },
      );
    this.add(principal);
  }

  /** Counts a run without the limit: one the server recovered after a restart, already running. */
  add(principal: string): void {
    this.#active.set(principal, (this.#active.get(principal) ?? 0) + 1);
  }

  /** Frees the slot of a run that ended. */
  release(principal: string): void {
    const n = (this.#active.get(principal) ?? 1) - 1;
    if (n <= 0) this.#active.delete(principal);
    else this.#active.set(principal, n);
  }
}
