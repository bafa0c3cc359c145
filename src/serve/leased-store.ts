import type { ClaimExpectation, NewRun, RunOwner, Store, StoredRun } from "../store/store.js";

/**
 * `store` as the server's agents see it: every run they create or claim is recorded with a lease
 * of `leaseMs` from then, which the server renews every quarter of it while it drives the run.
 * So from its first write a run is owned by a lease, and when the process stops renewing (it died,
 * paused, or lost the database) any other process may claim it once the lease ran out, whatever
 * host it was on. Everything else passes through unchanged.
 */
export function leasedStore(store: Store, leaseMs: number): Store {
  const leased = (owner: RunOwner): RunOwner => ({ ...owner, leaseUntil: Date.now() + leaseMs });
  const writes = {
    createRun: (run: NewRun): Promise<void> => store.createRun({ ...run, owner: leased(run.owner) }),
    claimRun: (runId: string, owner: RunOwner, expect?: ClaimExpectation): Promise<StoredRun> =>
      store.claimRun(runId, leased(owner), expect),
  };
  return new Proxy(store, {
    get(target, property) {
      if (Object.hasOwn(writes, property)) return writes[property as keyof typeof writes];
      const value: unknown = Reflect.get(target, property, target);
      // Methods of a class with private fields must run on the store itself, not on the proxy.
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
