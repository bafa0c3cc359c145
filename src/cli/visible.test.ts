import { describe, expect, it } from "vitest";
import { visible } from "./visible.js";

const ESC = "\u001b";

describe("visible: control characters of untrusted text, shown instead of obeyed", () => {
  it("escapes C0, DEL, C1, bidi overrides and line separators as JSON-style escapes", () => {
    expect(visible(`a\rb${ESC}[2Jc\u0007d\u007fe\u009bf\u202eg\u2066h\u2028i\n\tj`)).toBe(
      "a\\rb\\u001b[2Jc\\u0007d\\u007fe\\u009bf\\u202eg\\u2066h\\u2028i\\n\\tj",
    );
  });

  it("keeps newline and tab in text (answers), and prints CRLF as a newline", () => {
    expect(visible(`one\r\ntwo\n\tthree\rfour${ESC}]52;c;eA==\u0007`, "text")).toBe(
      "one\ntwo\n\tthree\\rfour\\u001b]52;c;eA==\\u0007",
    );
  });

  it("leaves printable text alone, emoji and non-Latin scripts included, and keeps JSON valid", () => {
    const text = 'Grüße, 你好 👩‍💻 {"a":"\\"q\\""}';
    expect(visible(text)).toBe(text);
    const json = JSON.stringify({ s: `x\u009by\u202ez` });
    expect(JSON.parse(visible(json))).toEqual({ s: `x\u009by\u202ez` });
  });
});
