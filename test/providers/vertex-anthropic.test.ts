/**
 * Claude on Vertex AI (rawPredict / streamRawPredict). No public recording of Vertex's Claude
 * traffic exists in the projects we take captures from (pydantic-ai, vercel/ai), so the requests
 * are checked against Google's and Anthropic's documented format: the model in the URL, no `model`
 * in the body, `anthropic_version: "vertex-2023-10-16"`, an OAuth bearer token. Vertex returns
 * Anthropic's answers unchanged, so the answers replayed are real Anthropic recordings.
 */
import { readFileSync } from "node:fs";
import { Agent, resolveModel, tool } from "glassloop";
import {
  CloudCredentialsError,
  countTokens,
  VERTEX_ANTHROPIC_VERSION,
  VertexAnthropicModel,
  VertexGeminiModel,
} from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { CAPTURES_DIR, captureJson, captureSse } from "../helpers/anthropic-captures.js";
import { startWireServer, type WireServer } from "../helpers/wire-server.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const MODEL = "claude-sonnet-4-5@20250929";
const PREFIX = "/v1/projects/my-proj/locations/us-east5/publishers/anthropic/models";
const build = (options: ConstructorParameters<typeof VertexAnthropicModel>[1] = {}) =>
  new VertexAnthropicModel(MODEL, {
    token: () => "ya29.vertex-token",
    baseURL: `${server.url}${PREFIX}`,
    ...options,
  });

const ask = (text: string, stream = false) => ({
  messages: [{ role: "user" as const, content: text }],
  tools: [],
  stream,
  signal: AbortSignal.timeout(10_000),
});

describe("Claude on Vertex AI", () => {
  it("builds the regional endpoint from the project and location, `global` without a region prefix", () => {
    const env = { GOOGLE_CLOUD_PROJECT: "my-proj" };
    const regional = new VertexAnthropicModel(MODEL, { token: () => "t", location: "us-east5", env });
    expect(regional.baseURL).toBe(
      "https://us-east5-aiplatform.googleapis.com/v1/projects/my-proj/locations/us-east5/publishers/anthropic/models",
    );
    // The Anthropic Vertex SDK's variables are read too; the default location is `global`.
    const global = new VertexAnthropicModel(MODEL, {
      token: () => "t",
      env: { ANTHROPIC_VERTEX_PROJECT_ID: "p2" },
    });
    expect(global.baseURL).toBe(
      "https://aiplatform.googleapis.com/v1/projects/p2/locations/global/publishers/anthropic/models",
    );
    expect(global.contextWindow).toBe(200_000);
    expect(global.price?.inputPerMTok).toBe(3);
  });

  it("rawPredict: the model in the URL, vertex-2023-10-16 in the body, the bearer token; the recorded answer parses", async () => {
    server.enqueue({ json: captureJson("anthropic--anthropic-text") });
    let calls = 0;
    const model = build({ token: () => `ya29.token-${++calls}` });
    const response = await model.generate(ask("Hello"), { onRequest: () => {} });
    expect(response.text.length).toBeGreaterThan(0);
    const sent = server.requests[0];
    expect(sent?.path).toBe(`${PREFIX}/claude-sonnet-4-5@20250929:rawPredict`);
    expect(sent?.headers.authorization).toBe("Bearer ya29.token-1");
    expect(sent?.headers["x-api-key"]).toBeUndefined();
    const body = sent?.body as Record<string, unknown>;
    expect(body.anthropic_version).toBe(VERTEX_ANTHROPIC_VERSION);
    expect(body).not.toHaveProperty("model");
    expect(body).toMatchObject({ max_tokens: 4096, messages: [{ role: "user" }] });
    // The token provider is asked before each call.
    server.enqueue({ json: captureJson("anthropic--anthropic-text") });
    await model.generate(ask("Again"), { onRequest: () => {} });
    expect(server.requests[1]?.headers.authorization).toBe("Bearer ya29.token-2");
  });

  it("streamRawPredict: `stream: true` in the body, a recorded Anthropic stream assembled", async () => {
    server.enqueue({
      headers: { "content-type": "text/event-stream" },
      sse: captureSse("anthropic--anthropic-text"),
    });
    const deltas: string[] = [];
    const response = await build().generate(ask("Hello", true), {
      onRequest: () => {},
      onDelta: (d) => {
        if (d.type === "text") deltas.push(d.text);
      },
    });
    expect(server.requests[0]?.path).toBe(`${PREFIX}/claude-sonnet-4-5@20250929:streamRawPredict`);
    expect(server.requests[0]?.body).toMatchObject({
      stream: true,
      anthropic_version: VERTEX_ANTHROPIC_VERSION,
    });
    expect(deltas.join("")).toBe(response.text);
    expect(response.usage.inputTokens).toBe(12);
  });

  it("a recorded thinking conversation replays through Vertex: each request is the recorded one, less `model`, plus anthropic_version", async () => {
    interface Recorded {
      model: string;
      thinking: { budget_tokens: number };
      messages: { content: string | { type: string; text?: string }[] }[];
      tools: { name: string; description: string }[];
    }
    const { interactions } = parse(
      readFileSync(
        `${CAPTURES_DIR}pydantic-ai/test_anthropic-test_anthropic_tool_with_thinking.yaml`,
        "utf8",
      ),
    ) as { interactions: { request: { parsed_body: Recorded }; response: { parsed_body: unknown } }[] };
    for (const { response } of interactions) server.enqueue({ json: response.parsed_body });
    const first = interactions[0]?.request.parsed_body as Recorded;
    const recordedTool = first.tools[0] as { name: string; description: string };
    const agent = new Agent({
      model: build({ thinking: { budgetTokens: first.thinking.budget_tokens }, cache: false }),
      tools: [
        tool({
          name: recordedTool.name,
          description: recordedTool.description,
          input: z.object({}),
          run: () => "Mexico",
        }),
      ],
    });
    const content = first.messages[0]?.content;
    const question = typeof content === "string" ? content : (content?.[0]?.text ?? "");
    const result = await agent.run(question);
    expect(result.output).toContain("Mexico City");
    expect(server.requests).toHaveLength(2);
    interactions.forEach(({ request }, i) => {
      const sent = server.requests[i]?.body as Record<string, unknown>;
      const { model: _model, ...recorded } = request.parsed_body as unknown as Record<string, unknown>;
      expect(sent.anthropic_version).toBe(VERTEX_ANTHROPIC_VERSION);
      expect(sent).not.toHaveProperty("model");
      // The thinking block and its signature go back exactly as Claude sent them.
      expect(blocks(sent.messages), `request ${i + 1}`).toEqual(blocks(recorded.messages));
      expect(sent.thinking).toEqual(recorded.thinking);
    });
  });

  it("counts tokens at count-tokens:rawPredict, the model named in the body", async () => {
    server.enqueue({ json: { input_tokens: 1114 } });
    const count = await countTokens(build(), ask("How many tokens?"));
    expect(count).toEqual({ tokens: 1114, source: "provider" });
    const sent = server.requests[0];
    expect(sent?.path).toBe(`${PREFIX}/count-tokens:rawPredict`);
    expect(sent?.body).toMatchObject({ anthropic_version: VERTEX_ANTHROPIC_VERSION, model: MODEL });
    expect(sent?.body).not.toHaveProperty("max_tokens");
  });

  it("a missing token or project is a typed error naming what to set; vertex:claude-… picks Claude, vertex:gemini-… Gemini", async () => {
    expect(() => new VertexAnthropicModel(MODEL, { env: { GOOGLE_CLOUD_PROJECT: "p" } })).toThrow(
      CloudCredentialsError,
    );
    expect(() => new VertexAnthropicModel(MODEL, { env: { GOOGLE_CLOUD_PROJECT: "p" } })).toThrow(
      /google-auth-library/,
    );
    expect(() => new VertexAnthropicModel(MODEL, { token: () => "t", env: {} })).toThrow(
      /GOOGLE_CLOUD_PROJECT/,
    );
    expect(() => resolveModel(`vertex:${MODEL}`, { GOOGLE_CLOUD_PROJECT: "p" })).toThrow(
      CloudCredentialsError,
    );
    expect(resolveModel("vertex:gemini-2.5-flash", { GOOGLE_VERTEX_API_KEY: "k" })).toBeInstanceOf(
      VertexGeminiModel,
    );
    const failing = build({
      token: () => {
        throw new Error("metadata server unreachable");
      },
    });
    await expect(failing.generate(ask("hi"), { onRequest: () => {} })).rejects.toBeInstanceOf(
      CloudCredentialsError,
    );
    expect(server.requests).toHaveLength(0);
  });
});

/**
 * Messages as Anthropic reads them: string content as one text block, a tool result's absent
 * `is_error` as `false`.
 */
function blocks(messages: unknown): unknown {
  return (messages as { role: string; content: string | Record<string, unknown>[] }[]).map((m) => ({
    role: m.role,
    content: (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content).map((b) =>
      b.type === "tool_result" ? { ...b, is_error: b.is_error === true } : b,
    ),
  }));
}
