import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Printer } from "./printer.js";
import { RunRenderer } from "./render.js";

function renderer(showPrompt = false) {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on("data", (d: Buffer) => out.push(String(d)));
  stderr.on("data", (d: Buffer) => err.push(String(d)));
  const printer = new Printer({ stdout, stderr, stdin: new PassThrough(), env: { NO_COLOR: "1" }, cwd: "/" });
  const r = new RunRenderer(printer, { showPrompt, quiet: false });
  const base = { runId: "r", time: 0 };
  const delta = (text: string) => r.onEvent({ ...base, type: "text_delta", step: 1, text });
  const end = () =>
    r.onEvent({
      ...base,
      type: "model_response",
      step: 1,
      text: "",
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 0, outputTokens: 0 },
      latencyMs: 0,
    });
  const request = (body: unknown) =>
    r.onEvent({ ...base, type: "model_request", step: 1, attempt: 1, model: "m", body });
  return { delta, end, request, stdout: () => out.join(""), stderr: () => err.join("") };
}

describe("RunRenderer: streamed answers with control characters", () => {
  it("shows a lone carriage return and escape sequences, and reads a CRLF split across pieces as a newline", () => {
    const r = renderer();
    r.delta("one\r");
    r.delta("\ntwo\r");
    r.delta("three \u001b[2J");
    r.delta("four\r");
    r.end();
    expect(r.stdout()).toBe("one\ntwo\\rthree \\u001b[2Jfour\\r\n");
  });
});

describe("RunRenderer: --show-prompt with images and PDFs", () => {
  it("prints their bytes as a hash and size, as the trace does, and every other byte of the body as sent", () => {
    const pdf = Buffer.from("%PDF-1.4\n%%EOF\n").toString("base64");
    const r = renderer(true);
    const file = {
      type: "file",
      file: { filename: "a.pdf", file_data: `data:application/pdf;base64,${pdf}` },
    };
    r.request({
      model: "gpt-4o",
      messages: [{ role: "user", content: [{ type: "text", text: "read" }, file] }],
    });
    const shown = r.stderr();
    expect(shown).not.toContain(pdf);
    expect(shown).toContain("(image and file bytes shown as sha256 and size)");
    expect(shown).toMatch(
      /\{"model":"gpt-4o","messages":\[\{"role":"user","content":\[\{"type":"text","text":"read"\},\{"type":"file","file":\{"filename":"a\.pdf","file_data":"data:application\/pdf;base64,\[file sha256:[0-9a-f]{16}, 15 bytes\]"\}\}\]\}\]\}/,
    );
  });

  it("prints a body without images or files exactly, with no note", () => {
    const r = renderer(true);
    r.request({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] });
    expect(r.stderr()).toContain('{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}');
    expect(r.stderr()).not.toContain("sha256");
  });
});
