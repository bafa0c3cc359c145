/**
 * Images in and out of tools, per provider: a user turn with an image (run option `images`), a tool
 * that returns image content, MCP-shaped image blocks, the size and type checks, and traces that
 * keep a hash and size instead of the bytes. Two recorded conversations are replayed: pydantic-ai's
 * image returned by a tool on OpenAI (the image follows the tool result in a user message) and an
 * image URL sent to Anthropic.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type ImagePart, type Model, tool } from "glassloop";
import { AnthropicModel, GeminiModel, OpenAIChatModel, OpenAIResponsesModel } from "glassloop/models";
import { TraceWriter } from "glassloop/trace";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadCassette, replyOf } from "../helpers/cassettes.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const POTATO = "https://t3.ftcdn.net/jpg/00/85/79/92/360_F_85799278_0BBGV9OAdQDTLnKwAPBCcg1J7QtiieJY.jpg";
// A 1x1 PNG.
const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const pixel: ImagePart = { type: "image", mediaType: "image/png", data: PIXEL };

type Json = Record<string, unknown>;

describe("recorded image conversations", () => {
  it("OpenAI: an image a tool returns follows the tool result as a user message (test_image_url_tool_response)", async () => {
    const exchanges = loadCassette<{ messages: Json[] }>("test_openai-test_image_url_tool_response");
    server.handler = (_r, i) => replyOf(exchanges[i]);
    const getImage = tool({
      name: "get_image",
      description: "",
      input: z.object({}),
      run: () => ({ type: "image", mediaType: "image/jpeg", url: POTATO }),
    });
    const model = new OpenAIChatModel({
      model: "gpt-4o",
      baseURL: `${server.url}/v1`,
      apiKey: "sk-test-0000",
    });
    const result = await new Agent({ model, tools: [getImage] }).run(
      "What food is in the image you can get from the get_image tool?",
    );
    expect(result.output).toBe("The image shows a potato.");
    const sent = (server.requests[1]?.body as { messages: Json[] } | undefined)?.messages ?? [];
    const recorded = exchanges[1]?.request.parsed_body.messages as Json[];
    expect(sent.map((m) => m.role)).toEqual(recorded.map((m) => m.role));
    // The recorded client named the image "file bd38f5"; glassloop names the tool and call.
    expect(sent[2]).toMatchObject({ role: "tool", content: `[image image/jpeg at ${POTATO}]` });
    expect(sent[3]).toEqual({
      role: "user",
      content: [
        { type: "text", text: expect.stringMatching(/^Images returned by tool get_image \(call call_/) },
        (recorded[3]?.content as Json[] | undefined)?.[1],
      ],
    });
    expect(result.messages.find((m) => m.role === "tool")).toMatchObject({
      images: [{ type: "image", mediaType: "image/jpeg", url: POTATO }],
    });
  });

  it("Anthropic: an image URL with the user's text (test_image_url_input)", async () => {
    const exchanges = loadCassette<{ messages: Json[] }>("test_anthropic-test_image_url_input");
    server.handler = (_r, i) => replyOf(exchanges[i]);
    const model = new AnthropicModel("claude-haiku-4-5", {
      apiKey: "sk-ant-test-0000",
      baseURL: server.url,
      cache: false,
    });
    const result = await new Agent({ model }).run("What is this vegetable?", {
      images: [{ type: "image", mediaType: "image/jpeg", url: POTATO }],
    });
    expect(String(result.output)).toMatch(/^This is a potato/);
    const sent = server.requests[0]?.body as { messages: Json[] };
    expect(sent.messages).toEqual(exchanges[0]?.request.parsed_body.messages);
  });
});

describe("images per provider", () => {
  const providers: { name: string; model: () => Model; reply: unknown; path: string }[] = [
    {
      name: "anthropic",
      model: () =>
        new AnthropicModel("claude-haiku-4-5", {
          apiKey: "sk-ant-test-0000",
          baseURL: server.url,
          cache: false,
        }),
      reply: { content: [{ type: "text", text: "ok" }], stop_reason: "end_turn" },
      path: "/v1/messages",
    },
    {
      name: "openai-responses",
      model: () =>
        new OpenAIResponsesModel("gpt-5", { apiKey: "sk-test-0000", baseURL: `${server.url}/v1`, env: {} }),
      reply: {
        status: "completed",
        output: [{ type: "message", content: [{ type: "output_text", text: "ok" }] }],
      },
      path: "/v1/responses",
    },
    {
      name: "google",
      model: () =>
        new GeminiModel("gemini-2.5-flash", {
          apiKey: "g-test-0000",
          baseURL: `${server.url}/v1beta`,
          env: {},
        }),
      reply: { candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP" }] },
      path: "/v1beta/models/gemini-2.5-flash:generateContent",
    },
  ];

  for (const p of providers) {
    it(`${p.name}: user images and tool images in the provider's own form`, async () => {
      const call = (() => {
        if (p.name === "anthropic")
          return {
            content: [{ type: "tool_use", id: "toolu_1", name: "snap", input: {} }],
            stop_reason: "tool_use",
          };
        if (p.name === "openai-responses")
          return {
            status: "completed",
            output: [{ type: "function_call", call_id: "call_1", name: "snap", arguments: "{}" }],
          };
        return {
          candidates: [
            {
              content: { role: "model", parts: [{ functionCall: { id: "call_1", name: "snap", args: {} } }] },
              finishReason: "STOP",
            },
          ],
        };
      })();
      server.enqueue({ json: call }, { json: p.reply });
      const snap = tool({
        name: "snap",
        description: "",
        input: z.object({}),
        run: () => [{ type: "text", text: "a pixel" }, pixel],
      });
      await new Agent({ model: p.model(), tools: [snap] }).run("look", { images: [pixel] });
      const [first, second] = server.requests.map((r) => r.raw);
      expect(server.requests[0]?.path).toBe(p.path);
      expect(first).toContain(PIXEL);
      // The tool's image reaches the model in the second request, its bytes as sent.
      expect(second?.split(PIXEL).length).toBe(3);
      const body = server.requests[1]?.body as Json;
      if (p.name === "anthropic") {
        const messages = body.messages as { content: Json[] }[];
        expect(messages[0]?.content).toEqual([
          { type: "text", text: "look" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL } },
        ]);
        expect(messages[2]?.content[0]).toMatchObject({
          type: "tool_result",
          content: [
            { type: "text", text: "a pixel\n[image image/png, 70 bytes]" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL } },
          ],
        });
      } else if (p.name === "openai-responses") {
        const input = body.input as Json[];
        expect(input[0]).toEqual({
          role: "user",
          content: [
            { type: "input_text", text: "look" },
            { type: "input_image", image_url: `data:image/png;base64,${PIXEL}`, detail: "auto" },
          ],
        });
        expect(input.at(-1)).toMatchObject({
          role: "user",
          content: [{ type: "input_text" }, { type: "input_image" }],
        });
      } else {
        const contents = body.contents as { role: string; parts: Json[] }[];
        expect(contents[0]?.parts).toEqual([
          { text: "look" },
          { inlineData: { mimeType: "image/png", data: PIXEL } },
        ]);
        expect(contents[2]?.parts.map((part) => Object.keys(part)[0])).toEqual([
          "functionResponse",
          "text",
          "inlineData",
        ]);
      }
    });
  }
});

describe("image checks and traces", () => {
  it("a user image of the wrong type, too large, or with a non-http url is a ConfigError before any request", async () => {
    const model = new OpenAIChatModel({ model: "m", baseURL: `${server.url}/v1` });
    const bad: ImagePart[] = [
      { type: "image", mediaType: "image/tiff", data: PIXEL },
      { type: "image", mediaType: "image/png", data: "A".repeat(8 * 1024 * 1024) },
      { type: "image", mediaType: "image/png", url: "file:///etc/passwd" },
      { type: "image", mediaType: "image/png", data: "not base64!" },
    ];
    for (const image of bad)
      await expect(new Agent({ model }).run("x", { images: [image] })).rejects.toMatchObject({
        code: "config",
      });
    expect(server.requests).toHaveLength(0);
  });

  it("a tool that returns a bad image gets an error result the model can read", async () => {
    server.enqueue(
      {
        json: {
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                tool_calls: [{ id: "c1", type: "function", function: { name: "snap", arguments: "{}" } }],
              },
              finish_reason: "tool_calls",
            },
          ],
        },
      },
      {
        json: {
          choices: [{ index: 0, message: { role: "assistant", content: "sorry" }, finish_reason: "stop" }],
        },
      },
    );
    const snap = tool({
      name: "snap",
      description: "",
      input: z.object({}),
      run: () => ({ type: "image", mediaType: "image/bmp", data: PIXEL }),
    });
    const model = new OpenAIChatModel({ model: "m", baseURL: `${server.url}/v1` });
    const result = await new Agent({ model, tools: [snap] }).run("x");
    expect(result.messages.find((m) => m.role === "tool")).toMatchObject({
      isError: true,
      content: expect.stringContaining('image of type "image/bmp"'),
    });
  });

  it("traces keep a hash and the size of every image, never the bytes, unless told to keep them", async () => {
    const reply = {
      json: { choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }] },
    };
    server.enqueue(reply, reply);
    const big = {
      type: "image",
      mediaType: "image/png",
      data: PIXEL.repeat(50).replaceAll("=", "A"),
    } as const;
    const model = new OpenAIChatModel({ model: "m", baseURL: `${server.url}/v1` });
    const dir = mkdtempSync(join(tmpdir(), "glassloop-images-"));
    const digest = new TraceWriter({ file: join(dir, "digest.jsonl") });
    const keep = new TraceWriter({ file: join(dir, "keep.jsonl"), images: "keep" });
    await new Agent({ model }).run("look", { images: [big], onEvent: digest.onEvent });
    await new Agent({ model }).run("look", { images: [big], onEvent: keep.onEvent });
    const digested = readFileSync(join(dir, "digest.jsonl"), "utf8");
    expect(digested).not.toContain(big.data);
    expect(digested).toMatch(/data:image\/png;base64,\[image sha256:[0-9a-f]{16}, \d+ bytes\]/);
    expect(digested).toMatch(/"data":"\[image sha256:[0-9a-f]{16}, \d+ bytes\]"/);
    expect(readFileSync(join(dir, "keep.jsonl"), "utf8")).toContain(big.data);
  });
});
