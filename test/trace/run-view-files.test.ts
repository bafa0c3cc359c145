import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, tool } from "glassloop";
import { FunctionModel } from "glassloop/testing";
import { buildRunView, readTraceEvents, TraceWriter } from "glassloop/trace";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const pdf = (text: string) => Buffer.from(`%PDF-1.4\n% ${text}\ntrailer<<>>\n%%EOF\n`).toString("base64");

describe("the run view of a traced run with PDFs (what the viewer shows)", () => {
  it("shows each file as a hash and size in the request and transcript, and named in the tool's result", async () => {
    const input = pdf("the user's contract");
    const returned = pdf("the signed page");
    const model = new FunctionModel(({ messages }) =>
      messages.some((m) => m.role === "tool")
        ? { text: "Signed." }
        : { toolCalls: [{ id: "c1", name: "signed_page", args: {} }] },
    );
    const signedPage = tool({
      name: "signed_page",
      description: "The signed page.",
      input: z.object({}),
      run: () => ({ type: "file", mediaType: "application/pdf", data: returned, filename: "signed.pdf" }),
    });
    const file = join(mkdtempSync(join(tmpdir(), "glassloop-run-view-")), "t.jsonl");
    const writer = new TraceWriter({ file });
    await new Agent({ model, tools: [signedPage] }).run("Is it signed?", {
      files: [{ type: "file", mediaType: "application/pdf", data: input, filename: "contract.pdf" }],
      onEvent: writer.onEvent,
    });
    const events = readTraceEvents(file);
    const view = buildRunView(events);
    const [first, second] = view.steps;
    const requestText = JSON.stringify(second?.requests.at(-1)?.body);
    expect(requestText).not.toContain(input);
    expect(requestText).not.toContain(returned);
    expect(requestText).toMatch(/\[file sha256:[0-9a-f]{16}, \d+ bytes\]/);
    expect(first?.tools[0]?.content).toBe(
      `[file application/pdf "signed.pdf", ${Buffer.from(returned, "base64").length} bytes]`,
    );
    expect(JSON.stringify(events)).not.toContain(input);
    expect(view.unknownEvents).toBe(0);
  });
});
