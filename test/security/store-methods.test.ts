/**
 * The store sink cannot be bypassed by a method nobody classified: every method of every real
 * store is named in `STORE_METHOD_RULES` (the compiler checks the `Store` interface; this walks
 * the classes, whose extra public methods the wrapper would otherwise pass through unscrubbed),
 * and every method the table calls a write comes back from `redactingStore` scrubbing.
 */
import { describe, expect, it } from "vitest";
import { PostgresStore } from "../../src/store/postgres/postgres-store.js";
import { redactingStore, STORE_METHOD_RULES, type StoreMethodRule } from "../../src/store/redacting-store.js";
import { deferredDefaultStore } from "../../src/store/sqlite/deferred-default-store.js";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import type { Store } from "../../src/store/store.js";

/** Every function on `proto` and the prototypes above it, up to (not including) Object.prototype. */
function methodsOf(proto: object): string[] {
  const names = new Set<string>();
  for (let p: object | null = proto; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const name of Object.getOwnPropertyNames(p)) {
      if (name === "constructor") continue;
      const descriptor = Object.getOwnPropertyDescriptor(p, name);
      if (typeof descriptor?.value === "function" || descriptor?.get || descriptor?.set) names.add(name);
    }
  }
  return [...names].sort();
}

const rules: Record<string, StoreMethodRule> = STORE_METHOD_RULES;

describe("redactingStore classifies every store method", () => {
  const stores: [string, object][] = [
    ["PostgresStore", PostgresStore.prototype],
    ["SqliteStore", SqliteStore.prototype],
    ["the deferred default store", Object.getPrototypeOf(deferredDefaultStore()) as object],
  ];
  for (const [name, proto] of stores) {
    it(`${name}: no method the table leaves out`, () => {
      const methods = methodsOf(proto);
      expect(methods).toContain("createRun");
      expect(methods.filter((m) => !Object.hasOwn(rules, m))).toEqual([]);
    });
  }

  it("the wrapper scrubs the arguments of every method the table calls a write", async () => {
    const seen: Record<string, unknown[]> = {};
    const recording = new Proxy({ location: "memory" } as Store, {
      get(target, property) {
        if (property === "location") return target.location;
        return (...args: unknown[]) => {
          seen[String(property)] = args;
          return Promise.resolve(undefined);
        };
      },
    });
    const scrubber = {
      text: (value: string) => value.replaceAll("SECRET", "[REDACTED]"),
      value: <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll("SECRET", "[REDACTED]")) as T,
    };
    const store = redactingStore(recording, scrubber) as unknown as Record<
      string,
      (...args: unknown[]) => unknown
    >;
    const messages = [{ role: "user", content: "SECRET" }];
    const progress = { pending: [], guard: "SECRET" };
    const args: Record<string, unknown[]> = {
      createRun: [{ runId: "r", input: "SECRET", messages, progress }],
      checkpoint: ["r", { persisted: 0, messages, progress }],
      finishRun: ["r", { persisted: 0, messages, output: "SECRET", error: { code: "x", message: "SECRET" } }],
      recordEndedRun: [{ runId: "r", input: "SECRET", messages, output: "SECRET" }],
      addNote: [{ scope: "s", text: "SECRET", metadata: { m: "SECRET" } }],
    };
    const writes = Object.entries(rules).filter(([, rule]) => rule.kind === "write");
    expect(writes.map(([name]) => name).sort()).toEqual([
      "addNote",
      "checkpoint",
      "createRun",
      "finishRun",
      "recordEndedRun",
    ]);
    for (const [name] of writes) {
      await store[name]?.(...(args[name] ?? []));
      expect(JSON.stringify(seen[name]), name).not.toContain("SECRET");
      expect(JSON.stringify(seen[name]), name).toContain("[REDACTED]");
    }
  });
});
