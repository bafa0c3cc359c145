import { Redactor } from "glassloop/trace";
import { describe, expect, it } from "vitest";

const REDACTED = "[REDACTED]";
const KEY = "sk-proj-FAKEfake1234567890abcdefXYZ";

describe("Redactor", () => {
  it("scrubs the values of API-key-like env variables wherever they appear", () => {
    const r = new Redactor({ env: { MY_PROVIDER_API_KEY: "plainvalue-123456", HOME: "/root/home-dir" } });
    expect(r.text("key=plainvalue-123456; home=/root/home-dir")).toBe(`key=${REDACTED}; home=/root/home-dir`);
  });

  it("scrubs credential headers by name, whatever their value looks like", () => {
    const r = new Redactor({ env: {} });
    const out = r.value({
      headers: {
        Authorization: "Basic dXNlcjpwYXNz",
        "x-api-key": "abc",
        "Content-Type": "application/json",
      },
      nested: [{ "X-Goog-Api-Key": "short" }],
    });
    expect(out).toEqual({
      headers: { Authorization: REDACTED, "x-api-key": REDACTED, "Content-Type": "application/json" },
      nested: [{ "X-Goog-Api-Key": REDACTED }],
    });
  });

  it("catches provider key shapes nobody declared: sk-, Bearer, AIza, URL key params", () => {
    const r = new Redactor({ env: {} });
    expect(r.text(`error: invalid key ${KEY} given`)).toBe(`error: invalid key ${REDACTED} given`);
    expect(r.text("Authorization: Bearer abcdefgh12345678")).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(r.text("AIzaSyA1234567890abcdefghijklmnopqrstuv")).toBe(REDACTED);
    expect(r.text("https://x.test/v1/models?key=abc123&alt=sse")).toBe(
      `https://x.test/v1/models?key=${REDACTED}&alt=sse`,
    );
    expect(r.text("ordinary text with sk-short and max_tokens")).toBe(
      "ordinary text with sk-short and max_tokens",
    );
  });

  it("treats every string of the hidden context as a secret, also inside JSON text", () => {
    class Db {
      constructor(readonly url: string) {}
    }
    const context = {
      db: new Db("postgres://admin:hunter2-secret@db.internal/app"),
      token: new Map([["k", 'tok-"quoted"-value']]),
    };
    const r = new Redactor({ env: {}, context });
    const args = JSON.stringify({ q: context.token.get("k") });
    const out = r.value({
      errorDetail: "connect postgres://admin:hunter2-secret@db.internal/app failed",
      arguments: args,
    });
    expect(JSON.stringify(out)).not.toContain("hunter2");
    expect(JSON.stringify(out)).not.toContain("quoted");
    expect(out.errorDetail).toBe(`connect ${REDACTED} failed`);
  });

  it("survives cycles and keeps the shape of the value", () => {
    const a: Record<string, unknown> = { name: "x", secret: "shh-its-a-secret" };
    a.self = a;
    const r = new Redactor({ env: {}, secrets: ["shh-its-a-secret"] });
    const out = r.value(a) as Record<string, unknown>;
    expect(out.secret).toBe(REDACTED);
    expect(out.self).toBe(out);
    expect(a.secret).toBe("shh-its-a-secret");
  });

  it("replaces a longer secret whole when it contains a shorter one", () => {
    const r = new Redactor({ env: {}, secrets: ["abcdef", "abcdefghij"] });
    expect(r.text("xabcdefghijx")).toBe(`x${REDACTED}x`);
  });

  it("stringify gives exactly the JSON of value(), without the copy", () => {
    const r = new Redactor({ env: { X_API_KEY: "abcdefgh-12345" }, secrets: ["top-secret"] });
    const event = {
      type: "model_request",
      body: {
        headers: { Authorization: "Bearer abcdefgh-12345" },
        messages: [{ content: "top-secret and abcdefgh-12345" }],
      },
      n: 1,
      nothing: null,
    };
    expect(r.stringify(event)).toBe(JSON.stringify(r.value(event)));
    expect(r.stringify(event)).not.toMatch(/top-secret|abcdefgh/);
  });
});
