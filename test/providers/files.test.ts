/**
 * Documents (PDFs) in and out of tools, per provider, on the wire: a user turn with a file (run
 * option `files`), a tool that returns file content, both streamed and not, with the request bodies
 * compared whole; files by URL where the API takes them and a typed refusal where it does not; the
 * type, size, base64 and header checks; history validation; traces that keep a hash and size.
 * No recorded conversation with a PDF exists in ../shared/fixtures/captures, so the expected
 * bodies are written from each API's reference.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type FilePart, type Message, tool } from "glassloop";
import { MAX_FILE_BYTES } from "glassloop/memory";
import { OpenAIChatModel, UnsupportedContentError } from "glassloop/models";
import { TraceWriter } from "glassloop/trace";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { DIALECTS, type Dialect } from "../helpers/file-dialects.js";
import { chatJson } from "../helpers/openai-replies.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

// A tiny but well-formed PDF header and trailer: what the checks look at.
const pdf = (text: string) => Buffer.from(`%PDF-1.4\n% ${text}\ntrailer<<>>\n%%EOF\n`).toString("base64");
const REPORT = pdf("the user's report");
const FIGURES = pdf("figures a tool fetched");
const FIGURES_BYTES = Buffer.from(FIGURES, "base64").length;
const report: FilePart = { type: "file", mediaType: "application/pdf", data: REPORT, filename: "report.pdf" };
const PAPER_URL = "https://arxiv.org/pdf/1706.03762";

type Json = Record<string, unknown>;

function dialect(name: Dialect["name"]): Dialect {
  const found = DIALECTS.find((d) => d.name === name);
  if (!found) throw new Error(`no dialect ${name}`);
  return found;
}

/** A tool returning text and a PDF, the shape any tool (or MCP resource) may return. */
const fetchFigures = tool({
  name: "fetch_figures",
  description: "Fetches the quarter's figures as a PDF.",
  input: z.object({}),
  run: () => [
    { type: "text", text: "Q3 figures" },
    { type: "file", mediaType: "application/pdf", data: FIGURES, filename: "q3.pdf" },
  ],
});
const TOOL_TEXT = `Q3 figures\n[file application/pdf "q3.pdf", ${FIGURES_BYTES} bytes]`;

/** What each provider must send: the first turn's user message and the second request's tail. */
const EXPECTED: Record<string, { first: unknown; second: (body: Json) => unknown; expected: unknown }> = {
  openai: {
    first: {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Summarize" },
            {
              type: "file",
              file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${REPORT}` },
            },
          ],
        },
      ],
    },
    second: (body) => (body.messages as Json[]).slice(2),
    expected: [
      { role: "tool", tool_call_id: "call_1", content: TOOL_TEXT },
      {
        role: "user",
        content: [
          { type: "text", text: "Files returned by tool fetch_figures (call call_1):" },
          { type: "file", file: { filename: "q3.pdf", file_data: `data:application/pdf;base64,${FIGURES}` } },
        ],
      },
    ],
  },
  "openai-responses": {
    first: {
      input: [
        {
          role: "user",
          content: [
            { type: "input_text", text: "Summarize" },
            {
              type: "input_file",
              filename: "report.pdf",
              file_data: `data:application/pdf;base64,${REPORT}`,
            },
          ],
        },
      ],
    },
    second: (body) => (body.input as Json[]).slice(2),
    expected: [
      { type: "function_call_output", call_id: "call_1", output: TOOL_TEXT },
      {
        role: "user",
        content: [
          { type: "input_text", text: "Files returned by tool fetch_figures (call call_1):" },
          { type: "input_file", filename: "q3.pdf", file_data: `data:application/pdf;base64,${FIGURES}` },
        ],
      },
    ],
  },
  anthropic: {
    first: {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Summarize" },
            {
              type: "document",
              source: { type: "base64", media_type: "application/pdf", data: REPORT },
              title: "report.pdf",
            },
          ],
        },
      ],
    },
    second: (body) => (body.messages as Json[]).slice(2),
    expected: [
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "call_1",
            content: [
              { type: "text", text: TOOL_TEXT },
              {
                type: "document",
                source: { type: "base64", media_type: "application/pdf", data: FIGURES },
                title: "q3.pdf",
              },
            ],
          },
        ],
      },
    ],
  },
  google: {
    first: {
      contents: [
        {
          role: "user",
          parts: [{ text: "Summarize" }, { inlineData: { mimeType: "application/pdf", data: REPORT } }],
        },
      ],
    },
    second: (body) => (body.contents as Json[]).slice(2),
    expected: [
      {
        role: "user",
        parts: [
          { functionResponse: { id: "call_1", name: "fetch_figures", response: { output: TOOL_TEXT } } },
          { text: "Files returned by tool fetch_figures (call call_1):" },
          { inlineData: { mimeType: "application/pdf", data: FIGURES } },
        ],
      },
    ],
  },
};

/** The body without the keys only a streamed request has. */
function unstreamed(body: Json): Json {
  const { stream: _s, stream_options: _o, ...rest } = body;
  return rest;
}

describe("files on the wire, per provider", () => {
  for (const d of DIALECTS) {
    it(`${d.name}: a user's PDF and a tool's PDF in the provider's own form, streamed and not, the same bodies`, async () => {
      const bodies: Json[][] = [];
      for (const stream of [false, true]) {
        server.reset();
        server.enqueue(d.toolCall("call_1", "fetch_figures", stream), d.text("done", stream));
        const agent = new Agent({ model: d.model(server.url), tools: [fetchFigures] });
        const result = stream
          ? await agent.stream("Summarize", { files: [report] }).result
          : await agent.run("Summarize", { files: [report] });
        expect(result.output).toBe("done");
        const [first, second] = server.requests.map((r) => r.body as Json);
        const expected = EXPECTED[d.name];
        expect(first).toMatchObject(expected?.first as Json);
        expect(expected?.second(second as Json)).toEqual(expected?.expected);
        expect(result.messages.find((m) => m.role === "tool")).toEqual({
          role: "tool",
          toolCallId: "call_1",
          toolName: "fetch_figures",
          content: TOOL_TEXT,
          files: [{ type: "file", mediaType: "application/pdf", data: FIGURES, filename: "q3.pdf" }],
        });
        bodies.push([first as Json, second as Json].map(unstreamed));
      }
      // Streaming changes only the stream flags: every other byte of both requests is the same.
      expect(bodies[1]).toEqual(bodies[0]);
    });
  }

  const byUrl: Record<string, (body: Json) => unknown> = {
    "openai-responses": (body) => (body.input as { content: Json[] }[])[0]?.content[1],
    anthropic: (body) => (body.messages as { content: Json[] }[])[0]?.content[1],
    google: (body) => (body.contents as { parts: Json[] }[])[0]?.parts[1],
  };
  const urlParts: Record<string, unknown> = {
    "openai-responses": { type: "input_file", file_url: PAPER_URL },
    anthropic: { type: "document", source: { type: "url", url: PAPER_URL } },
    google: { fileData: { mimeType: "application/pdf", fileUri: PAPER_URL } },
  };
  for (const d of DIALECTS.filter((x) => x.name !== "openai")) {
    it(`${d.name}: a file by URL is sent as a URL`, async () => {
      server.enqueue(d.text("ok", false));
      await new Agent({ model: d.model(server.url) }).run("Read this paper", {
        files: [{ type: "file", mediaType: "application/pdf", url: PAPER_URL }],
      });
      expect(byUrl[d.name]?.(server.requests[0]?.body as Json)).toEqual(urlParts[d.name]);
    });
  }

  it("openai: Chat Completions has no file by URL: an UnsupportedContentError before any request", async () => {
    const model = new OpenAIChatModel({
      model: "gpt-4o",
      baseURL: `${server.url}/v1`,
      apiKey: "sk-test-0000",
    });
    const run = new Agent({ model }).run("Read this paper", {
      files: [{ type: "file", mediaType: "application/pdf", url: PAPER_URL }],
    });
    await expect(run).rejects.toMatchObject({
      code: "config",
      message: expect.stringMatching(/Chat Completions cannot take a file by URL .*openai-responses:/),
    });
    const error = await run.catch((e: unknown) => e);
    const cause = (error as { cause?: unknown }).cause ?? error;
    expect(cause).toBeInstanceOf(UnsupportedContentError);
    expect(server.requests).toHaveLength(0);
  });

  it("openai: a file without a name is sent as document.pdf (the API needs a name with the bytes)", async () => {
    server.enqueue(chatJson({ text: "ok" }));
    const model = new OpenAIChatModel({
      model: "gpt-4o",
      baseURL: `${server.url}/v1`,
      apiKey: "sk-test-0000",
    });
    await new Agent({ model }).run("x", {
      files: [{ type: "file", mediaType: "application/pdf", data: REPORT }],
    });
    const sent = server.requests[0]?.body as { messages: { content: Json[] }[] };
    expect(sent.messages[0]?.content[1]).toEqual({
      type: "file",
      file: { filename: "document.pdf", file_data: `data:application/pdf;base64,${REPORT}` },
    });
  });

  it("images and files from one tool follow its result together, images first", async () => {
    const PIXEL =
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const both = tool({
      name: "both",
      description: "",
      input: z.object({}),
      run: () => [
        { type: "file", mimeType: "application/pdf", data: FIGURES },
        { type: "image", mimeType: "image/png", data: PIXEL },
      ],
    });
    const chat = dialect("openai");
    server.enqueue(chat.toolCall("call_1", "both", false), chat.text("ok", false));
    await new Agent({ model: chat.model(server.url), tools: [both] }).run("x");
    const sent = (server.requests[1]?.body as { messages: Json[] } | undefined)?.messages ?? [];
    expect(sent.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Images and files returned by tool both (call call_1):" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PIXEL}` } },
        {
          type: "file",
          file: { filename: "document.pdf", file_data: `data:application/pdf;base64,${FIGURES}` },
        },
      ],
    });
  });
});

describe("a transcript with files moving between providers", () => {
  it("made on Anthropic (PDF inside tool_result), continued on each other provider: the same parts in its own places", async () => {
    const anthropic = dialect("anthropic");
    server.enqueue(anthropic.toolCall("toolu_1", "fetch_figures", false), anthropic.text("read", false));
    const made = await new Agent({ model: anthropic.model(server.url), tools: [fetchFigures] }).run(
      "Summarize",
      {
        files: [report],
      },
    );
    const history = JSON.parse(JSON.stringify(made.messages)) as Message[];
    for (const d of DIALECTS.filter((x) => x.name !== "anthropic")) {
      server.reset();
      server.enqueue(d.text("again", false));
      await new Agent({ model: d.model(server.url), tools: [fetchFigures] }).run("And now?", { history });
      const raw = server.requests[0]?.raw ?? "";
      // Each document is sent once, where this provider puts it.
      expect(raw.split(REPORT), d.name).toHaveLength(2);
      expect(raw.split(FIGURES), d.name).toHaveLength(2);
      expect(raw, d.name).toContain("Files returned by tool fetch_figures (call ");
    }
  });

  it("a file by URL made on the Responses API is refused when the transcript moves to Chat Completions", async () => {
    const history: Message[] = [
      {
        role: "user",
        content: "Read it",
        files: [{ type: "file", mediaType: "application/pdf", url: PAPER_URL }],
      },
      { role: "assistant", content: "It is about attention." },
    ];
    const chat = dialect("openai");
    await expect(
      new Agent({ model: chat.model(server.url) }).run("More?", { history }),
    ).rejects.toMatchObject({
      code: "config",
      message: expect.stringMatching(/cannot take a file by URL/),
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe("file checks", () => {
  const BAD: [string, FilePart, RegExp][] = [
    [
      "a type other than PDF",
      { type: "file", mediaType: "text/plain", data: REPORT },
      /of type "text\/plain"/,
    ],
    [
      "more than MAX_FILE_BYTES",
      { type: "file", mediaType: "application/pdf", data: pdf("x".repeat(MAX_FILE_BYTES)) },
      /a file of \d+ bytes \(at most 10485760\)/,
    ],
    [
      "more than MAX_FILE_BYTES that are not even base64 (refused by its length, unscanned)",
      { type: "file", mediaType: "application/pdf", data: "!".repeat(MAX_FILE_BYTES * 2) },
      /a file of \d+ bytes \(at most 10485760\)/,
    ],
    [
      "data that is not base64",
      { type: "file", mediaType: "application/pdf", data: "not base64!" },
      /not base64/,
    ],
    [
      "bytes that are not a PDF",
      { type: "file", mediaType: "application/pdf", data: Buffer.from("hello world!").toString("base64") },
      /not a PDF \(no %PDF- header\)/,
    ],
    ["an empty file", { type: "file", mediaType: "application/pdf", data: "" }, /an empty file/],
    [
      "a url that is not http(s)",
      { type: "file", mediaType: "application/pdf", url: "file:///etc/passwd" },
      /not http\(s\)/,
    ],
    ["neither data nor url", { type: "file", mediaType: "application/pdf" }, /neither data nor a url/],
    [
      "a name with control characters",
      { type: "file", mediaType: "application/pdf", data: REPORT, filename: "a\u001b[2Jb.pdf" },
      /control characters/,
    ],
  ];

  for (const [what, file, message] of BAD) {
    it(`an input file with ${what} is a ConfigError naming the problem, before any request`, async () => {
      const model = new OpenAIChatModel({ model: "m", baseURL: `${server.url}/v1` });
      await expect(new Agent({ model }).run("x", { files: [file] })).rejects.toMatchObject({
        code: "config",
        message: expect.stringMatching(message),
      });
      expect(server.requests).toHaveLength(0);
    });
  }

  it("a tool that returns a bad file gets an error result the model can read, and the run goes on", async () => {
    const chat = dialect("openai");
    server.enqueue(chat.toolCall("c1", "scan", false), chat.text("sorry", false));
    const scan = tool({
      name: "scan",
      description: "",
      input: z.object({}),
      run: () => ({ type: "file", mediaType: "application/msword", data: REPORT }),
    });
    const result = await new Agent({ model: chat.model(server.url), tools: [scan] }).run("x");
    expect(result.output).toBe("sorry");
    const message = result.messages.find((m) => m.role === "tool");
    expect(message).toMatchObject({
      isError: true,
      content: 'The tool returned a file of type "application/msword" (allowed: application/pdf).',
    });
    expect(message).not.toHaveProperty("files");
  });

  it("a tool's own JSON with type: file entries (a directory listing) stays JSON, not file content", async () => {
    const chat = dialect("openai");
    server.enqueue(chat.toolCall("c1", "ls", false), chat.text("two files", false));
    const listing = [
      { type: "file", name: "a.txt", size: 3 },
      { type: "file", name: "b.pdf", mimeType: "application/pdf" },
    ];
    const ls = tool({ name: "ls", description: "", input: z.object({}), run: () => listing });
    const result = await new Agent({ model: chat.model(server.url), tools: [ls] }).run("x");
    expect(result.messages.find((m) => m.role === "tool")).toEqual({
      role: "tool",
      toolCallId: "c1",
      toolName: "ls",
      content: JSON.stringify(listing),
    });
  });

  it("history with a bad file is an Invalid history error that says where", async () => {
    const model = new OpenAIChatModel({ model: "m", baseURL: `${server.url}/v1` });
    const history: Message[] = [
      { role: "user", content: "read", files: [{ type: "file", mediaType: "application/pdf", data: "%%%" }] },
      { role: "assistant", content: "ok" },
    ];
    await expect(new Agent({ model }).run("again", { history })).rejects.toMatchObject({
      code: "config",
      message: expect.stringMatching(/^Invalid history: .*at 0\.files\.0: a file whose data is not base64/),
    });
    expect(server.requests).toHaveLength(0);
  });

  it("history with good files (user and tool) survives JSON and is sent again", async () => {
    server.enqueue(chatJson({ text: "ok" }));
    const history = JSON.parse(
      JSON.stringify([
        { role: "user", content: "read", files: [report] },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "fetch_figures", arguments: "{}" }] },
        {
          role: "tool",
          toolCallId: "c1",
          toolName: "fetch_figures",
          content: "figures",
          files: [{ type: "file", mediaType: "application/pdf", data: FIGURES }],
        },
        { role: "assistant", content: "read both" },
      ]),
    ) as Message[];
    const model = new OpenAIChatModel({ model: "m", baseURL: `${server.url}/v1` });
    await new Agent({ model, tools: [fetchFigures] }).run("again", { history });
    const raw = server.requests[0]?.raw ?? "";
    expect(raw.split(REPORT)).toHaveLength(2);
    expect(raw.split(FIGURES)).toHaveLength(2);
  });
});

describe("a tool's files in a later turn's history", () => {
  // The attachments of turn 1 belong right after its tool results, before the answer that read them,
  // not after the whole conversation (where the model would take them for the new task's input).
  const history: Message[] = [
    { role: "user", content: "read" },
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "fetch_figures", arguments: "{}" }] },
    {
      role: "tool",
      toolCallId: "c1",
      toolName: "fetch_figures",
      content: "figures",
      files: [{ type: "file", mediaType: "application/pdf", data: FIGURES }],
    },
    { role: "assistant", content: "read both" },
  ];
  const ORDER: Record<string, (body: Json) => unknown[]> = {
    openai: (body) =>
      (body as { messages: { role: string; content: unknown }[] }).messages.map((m) =>
        Array.isArray(m.content) ? `${m.role}+parts` : m.role,
      ),
    "openai-responses": (body) =>
      (body as { input: { type?: string; role?: string; content?: unknown }[] }).input.map((item) =>
        item.role === undefined ? item.type : Array.isArray(item.content) ? `${item.role}+parts` : item.role,
      ),
  };
  const expected: Record<string, unknown[]> = {
    openai: ["user", "assistant", "tool", "user+parts", "assistant", "user"],
    "openai-responses": ["user", "function_call", "function_call_output", "user+parts", "assistant", "user"],
  };
  for (const d of DIALECTS.filter((x) => x.name in ORDER)) {
    it(`${d.name}: follow that turn's tool results, before the answer after them`, async () => {
      server.enqueue(d.text("ok", false));
      await new Agent({ model: d.model(server.url), tools: [fetchFigures] }).run("again", { history });
      expect(ORDER[d.name]?.(server.requests[0]?.body as Json)).toEqual(expected[d.name]);
    });
  }
});

describe("files in traces", () => {
  it("traces keep a hash and the size of every file, never the bytes, unless told to keep them", async () => {
    const anthropic = dialect("anthropic");
    const dir = mkdtempSync(join(tmpdir(), "glassloop-files-"));
    const texts: Record<string, string> = {};
    for (const mode of ["digest", "keep"] as const) {
      server.reset();
      server.enqueue(anthropic.toolCall("call_1", "fetch_figures", false), anthropic.text("done", false));
      const file = join(dir, `${mode}.jsonl`);
      const writer = new TraceWriter({ file, files: mode });
      await new Agent({ model: anthropic.model(server.url), tools: [fetchFigures] }).run("Summarize", {
        files: [report],
        onEvent: writer.onEvent,
      });
      texts[mode] = readFileSync(file, "utf8");
    }
    const digested = texts.digest ?? "";
    expect(digested).not.toContain(REPORT);
    expect(digested).not.toContain(FIGURES);
    // In the requests (Anthropic's document source) and in the transcript (the file parts).
    expect(digested).toMatch(
      /"media_type":"application\/pdf","data":"\[file sha256:[0-9a-f]{16}, \d+ bytes\]"/,
    );
    expect(digested).toMatch(
      /"mediaType":"application\/pdf","data":"\[file sha256:[0-9a-f]{16}, \d+ bytes\]"/,
    );
    // The tool result's text names the file for the viewer and the model alike.
    expect(digested).toContain(JSON.stringify(TOOL_TEXT).slice(1, -1));
    expect(texts.keep).toContain(REPORT);
    expect(texts.keep).toContain(FIGURES);
  });

  it("Chat Completions' data: URLs of files are digested too", async () => {
    server.enqueue(chatJson({ text: "ok" }));
    const dir = mkdtempSync(join(tmpdir(), "glassloop-files-"));
    const file = join(dir, "t.jsonl");
    const writer = new TraceWriter({ file });
    const model = new OpenAIChatModel({ model: "m", baseURL: `${server.url}/v1` });
    await new Agent({ model }).run("x", { files: [report], onEvent: writer.onEvent });
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(REPORT);
    expect(text).toMatch(
      /"file_data":"data:application\/pdf;base64,\[file sha256:[0-9a-f]{16}, \d+ bytes\]"/,
    );
  });
});
