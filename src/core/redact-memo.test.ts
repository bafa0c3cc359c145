import { describe, expect, it } from "vitest";
import { REDACTED, Redactor } from "./redact.js";
import { TextMemo } from "./text-memo.js";

const SECRET = "growing-history-secret-4711";

describe("the redactor's memo never masks a secret", () => {
  it("a secret in a later message of a growing history is scrubbed, every time it is scrubbed again", () => {
    const redactor = new Redactor({ env: { APP_TOKEN: SECRET }, patterns: [/\bPIN\d{4}\b/g] });
    const history: { role: string; content: string }[] = [{ role: "user", content: "hello there, model" }];
    const leaks = [
      `the token is ${SECRET}`,
      "my key sk-abcdefghijklmnopqrstuv",
      "call https://user:hunter22@example.com/x",
      "use PIN1234 at the door",
    ];
    for (const leak of leaks) {
      // The earlier messages are scrubbed (and remembered) before the leak arrives, in a fresh copy as a step's output would be.
      for (let i = 0; i < 3; i++) expect(redactor.value(JSON.parse(JSON.stringify(history)))).toBeDefined();
      history.push({ role: "assistant", content: "sure" }, { role: "user", content: leak });
      for (let i = 0; i < 3; i++) {
        const out = JSON.stringify(redactor.value(JSON.parse(JSON.stringify(history))));
        expect(out).toContain(REDACTED);
        for (const secret of [SECRET, "sk-abcdefghijklmnopqrstuv", "hunter22", "PIN1234"])
          expect(out).not.toContain(secret);
      }
    }
    expect(redactor.text(`again ${SECRET}`)).toBe(`again ${REDACTED}`);
  });

  it("a caller's pattern is applied to the shortest texts too", () => {
    const redactor = new Redactor({ env: {}, patterns: [/x/g] });
    expect(redactor.text("x")).toBe(REDACTED);
    expect(redactor.text("x")).toBe(REDACTED);
    expect(new Redactor({ env: {} }).text("short")).toBe("short");
  });

  it("texts remembered before a generation turns over still come out scrubbed", () => {
    const redactor = new Redactor({ env: { APP_TOKEN: SECRET } });
    const leak = `first ${SECRET}`;
    expect(redactor.text(leak)).toBe(`first ${REDACTED}`);
    const filler = "y".repeat(10_000);
    for (let i = 0; i < 400; i++) redactor.text(`${i} ${filler}`);
    expect(redactor.text(leak)).toBe(`first ${REDACTED}`);
    expect(redactor.text(`${SECRET}${"z".repeat(20_000)}`)).toBe(`${REDACTED}${"z".repeat(20_000)}`);
  });
});

describe("TextMemo", () => {
  it("keeps what is in use across a generation and forgets what is not", () => {
    const memo = new TextMemo();
    memo.set("kept", "K");
    memo.set("dropped", "D");
    const filler = "f".repeat(16_000);
    for (let i = 0; i < 70; i++) memo.set(`${i}${filler}`, "F");
    expect(memo.get("kept")).toBe("K");
    for (let i = 70; i < 140; i++) memo.set(`${i}${filler}`, "F");
    expect(memo.get("kept")).toBe("K");
    expect(memo.get("dropped")).toBeUndefined();
    memo.set("long".repeat(5_000), "L");
    expect(memo.get("long".repeat(5_000))).toBeUndefined();
  });
});
