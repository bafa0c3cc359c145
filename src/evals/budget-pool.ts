/**
 * The eval's money, shared by trials running at once. A trial starts only with an allotment
 * carved from what is neither spent nor promised to another trial in flight, runs with that as
 * its `maxCostUsd`, and gives back what it did not use. So the trials together cannot be allowed
 * more than the eval's `maxCostUsd`.
 */
export class BudgetPool {
  #spent = 0;
  #reserved = 0;

  constructor(readonly total: number | undefined) {}

  /** Dollars spent by finished trials. */
  get spent(): number {
    return this.#spent;
  }

  /** What is neither spent nor reserved (undefined: no budget). */
  get free(): number | undefined {
    return this.total === undefined ? undefined : Math.max(0, this.total - this.#spent - this.#reserved);
  }

  /**
   * Reserves a trial's allotment: `cap` (the per-case limit) or a fair share of what is free among
   * the `slots` trials that may run at once, whichever is less. Undefined: no budget; 0: nothing left.
   */
  reserve(cap: number | undefined, slots: number): number | undefined {
    const free = this.free;
    if (free === undefined) return cap;
    if (free <= 0) return 0;
    const share = free / Math.max(1, slots);
    const allotment = Math.min(cap ?? share, share);
    this.#reserved += allotment;
    return allotment;
  }

  /** A trial ended having spent `used` of its `allotment`. */
  settle(allotment: number | undefined, used: number): void {
    if (this.total !== undefined && allotment !== undefined) this.#reserved -= allotment;
    this.#spent += used;
  }
}
