import { describe, expect, it } from "vitest";
import { StoreError } from "../errors.js";
import { SQLITE_BINDING_FIX, translateError } from "./sqlite-open.js";

describe("translateError", () => {
  it("a better-sqlite3 without its native binding becomes sqlite_binding_missing with the command that builds it", () => {
    // The words of the `bindings` package, which better-sqlite3 loads its addon through.
    const raw = new Error(
      "Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/better_sqlite3.node",
    );
    const error = translateError(raw, "/app/.glassloop/glassloop.db");
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({
      code: "sqlite_binding_missing",
      file: "/app/.glassloop/glassloop.db",
      cause: raw,
    });
    expect(error.message).toContain(SQLITE_BINDING_FIX);
    expect(SQLITE_BINDING_FIX).toBe(
      "npm install-scripts approve better-sqlite3 && npm rebuild better-sqlite3",
    );
  });

  it("an unrelated Error passes through unchanged", () => {
    const other = new Error("disk on fire");
    expect(translateError(other, "x.db")).toBe(other);
  });
});
