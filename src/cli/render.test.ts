import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Printer } from "./printer.js";
import { RunRenderer } from "./render.js";

function renderer() {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on("data", (d: Buffer) => out.push(String(d)));
  stderr.on("data", (d: Buffer) => err.push(String(d)));
  const printer = new Printer({ stdout, stderr, stdin: new PassThrough(), env: { NO_COLOR: "1" }, cwd: "/" });
  const r = new RunRenderer(printer, { showPrompt: false, quiet: false });
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
  return { delta, end, stdout: () => out.join(""), stderr: () => err.join("") };
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
