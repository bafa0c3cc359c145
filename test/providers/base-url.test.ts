/**
 * Base URLs of the OpenAI Responses and Gemini providers on the wire: a path is kept, the query is
 * kept after the endpoint path (Gemini's stream adds its own `alt=sse` to it), credentials in the
 * query or the userinfo reach the server and nothing else (events, trace, errors). The same rule
 * as Chat Completions and Anthropic, through the one `endpointUrl`.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type AgentEvent, type Model } from "glassloop";
import { AnthropicModel, GeminiModel, OpenAIResponsesModel } from "glassloop/models";
import { TraceWriter } from "glassloop/trace";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ofType } from "../helpers/core.js";
import {
  sseData,
  sseEvents,
  startWireServer,
  type WireReply,
  type WireServer,
} from "../helpers/wire-server.js";

const QUERY_KEY = "qk-base-url-secret-42";
const USER_PASS = "pw-userinfo-s3cret";
const REDACTED = "[REDACTED]";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** What differs between the two providers here. */
interface Dialect {
  name: string;
  model(baseURL: string): Model;
  /** The endpoint path after the base URL's path, streamed or not (without any query). */
  endpoint(stream: boolean): string;
  /** The query the endpoint itself adds, after the user's. */
  ownQuery(stream: boolean): string;
  reply(stream: boolean): WireReply;
}

const responses: Dialect = {
  name: "openai-responses",
  model: (baseURL) => new OpenAIResponsesModel("gpt-5", { baseURL, env: {} }),
  endpoint: () => "/responses",
  ownQuery: () => "",
  reply: (stream) =>
    stream
      ? {
          sse: sseEvents([
            {
              event: "response.output_text.delta",
              data: { type: "response.output_text.delta", output_index: 0, delta: "ok" },
            },
            {
              event: "response.completed",
              data: { type: "response.completed", response: responsesBody() },
            },
          ]),
        }
      : { json: responsesBody() },
};

function responsesBody() {
  return {
    id: "resp_1",
    status: "completed",
    output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "ok" }] }],
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

const geminiChunk = {
  candidates: [{ content: { role: "model", parts: [{ text: "ok" }] }, finishReason: "STOP" }],
  usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 },
};

const gemini: Dialect = {
  name: "google",
  model: (baseURL) => new GeminiModel("gemini-2.5-flash", { baseURL, env: {} }),
  endpoint: (stream) => `/models/gemini-2.5-flash:${stream ? "streamGenerateContent" : "generateContent"}`,
  ownQuery: (stream) => (stream ? "alt=sse" : ""),
  reply: (stream) => (stream ? { sse: sseData([geminiChunk], { done: false }) } : { json: geminiChunk }),
};

async function run(model: Model, stream: boolean, onEvent?: (event: AgentEvent) => void) {
  const events: AgentEvent[] = [];
  const agent = new Agent({ model, instructions: "Answer." });
  const options = {
    onEvent: (e: AgentEvent) => {
      events.push(e);
      onEvent?.(e);
    },
  };
  try {
    const result = stream ? await agent.stream("hi", options).result : await agent.run("hi", options);
    return { events, result, error: undefined };
  } catch (error) {
    return { events, result: undefined, error: error as Error };
  }
}

const withQuery = (path: string, ...queries: string[]) => {
  const query = queries.filter((q) => q !== "").join("&");
  return query === "" ? path : `${path}?${query}`;
};

for (const dialect of [responses, gemini]) {
  describe(`base URL of ${dialect.name}`, () => {
    for (const stream of [false, true]) {
      const mode = stream ? "streamed" : "not streamed";

      it(`${mode}: a path and ?api-version= are kept, the query after the endpoint path`, async () => {
        server.enqueue(dialect.reply(stream));
        const base = `${server.url}/gateway/v1?api-version=2025-01-01`;
        const { result, events, error } = await run(dialect.model(base), stream);
        expect(error).toBeUndefined();
        expect(result?.output).toBe("ok");
        const path = withQuery(
          `/gateway/v1${dialect.endpoint(stream)}`,
          "api-version=2025-01-01",
          dialect.ownQuery(stream),
        );
        expect(server.requests[0]?.path).toBe(path);
        expect(ofType(events, "model_request")[0]?.url).toBe(`${server.url}${path}`);
      });

      it(`${mode}: ?key= reaches the server and is redacted in events, the trace and errors`, async () => {
        const base = `${server.url}/v1?key=${QUERY_KEY}`;
        const dir = mkdtempSync(join(tmpdir(), "glassloop-base-url-"));
        const trace = new TraceWriter({ file: join(dir, "t.jsonl") });
        // The server quotes the URL it was called on in its error.
        server.enqueue({ status: 400, json: { error: { code: 400, message: `bad call to ${base}` } } });
        const failed = await run(dialect.model(base), stream, trace.onEvent);
        server.enqueue(dialect.reply(stream));
        const answered = await run(dialect.model(base), stream, trace.onEvent);
        trace.close();
        expect(failed.error).toBeDefined();
        expect(answered.error).toBeUndefined();
        const path = withQuery(
          `/v1${dialect.endpoint(stream)}`,
          `key=${QUERY_KEY}`,
          dialect.ownQuery(stream),
        );
        expect(server.requests.map((r) => r.path)).toEqual([path, path]);
        expect(ofType(answered.events, "model_request")[0]?.url).toBe(
          `${server.url}${withQuery(`/v1${dialect.endpoint(stream)}`, `key=${REDACTED}`, dialect.ownQuery(stream))}`,
        );
        const shown = [
          JSON.stringify([failed.events, answered.events]),
          failed.error?.message,
          failed.error?.stack,
          JSON.stringify(failed.error),
          String((failed.error as { cause?: { message?: string } }).cause?.message),
          readFileSync(join(dir, "t.jsonl"), "utf8"),
        ].join("\n");
        expect(shown).toContain(REDACTED);
        expect(shown).not.toContain(QUERY_KEY);
      });

      it(`${mode}: userinfo is sent as Basic auth and shown redacted`, async () => {
        server.enqueue(dialect.reply(stream));
        const host = new URL(server.url).host;
        const { events, error } = await run(dialect.model(`http://alice:${USER_PASS}@${host}/v1`), stream);
        expect(error).toBeUndefined();
        const request = server.requests[0];
        expect(request?.path).toBe(withQuery(`/v1${dialect.endpoint(stream)}`, dialect.ownQuery(stream)));
        expect(request?.headers.authorization).toBe(
          `Basic ${Buffer.from(`alice:${USER_PASS}`).toString("base64")}`,
        );
        const url = ofType(events, "model_request")[0]?.url;
        expect(url).toBe(`http://${REDACTED}@${host}${request?.path}`);
        expect(JSON.stringify(events)).not.toContain(USER_PASS);
      });
    }

    it("a base URL that is not http(s) is a ConfigError that shows no query credential", () => {
      expect(() => dialect.model(`ftp://example.test/v1?key=${QUERY_KEY}`)).toThrow(
        /is not an http\(s\) URL/,
      );
      expect(() => dialect.model(`ftp://example.test/v1?key=${QUERY_KEY}`)).not.toThrow(QUERY_KEY);
    });
  });
}

describe("Gemini's stream query", () => {
  it("the user's query comes first, alt=sse last, and a user alt= is replaced by the stream's", async () => {
    server.enqueue(gemini.reply(true), gemini.reply(false));
    const model = gemini.model(`${server.url}/v1beta/?api-version=2025-01-01&alt=json&x=a%26b`);
    expect((await run(model, true)).error).toBeUndefined();
    expect((await run(model, false)).error).toBeUndefined();
    expect(server.requests.map((r) => r.path)).toEqual([
      "/v1beta/models/gemini-2.5-flash:streamGenerateContent?api-version=2025-01-01&x=a%26b&alt=sse",
      // Not streamed, nothing of the endpoint's own is added: the user's query stands as written.
      "/v1beta/models/gemini-2.5-flash:generateContent?api-version=2025-01-01&alt=json&x=a%26b",
    ]);
  });
});

describe("a model object does not carry a base URL's credentials where it can be printed", () => {
  it("url is redacted and JSON.stringify shows no key, for Responses and Anthropic", () => {
    const base = `http://user:${USER_PASS}@127.0.0.1:9/v1?key=${QUERY_KEY}`;
    const models = [
      new OpenAIResponsesModel("gpt-5", { baseURL: base, env: {} }),
      new AnthropicModel("claude-sonnet-4-5", { baseURL: base, env: {} }),
    ];
    for (const model of models) {
      for (const shown of [model.url, JSON.stringify(model), String(Object.values(model))]) {
        expect(shown).not.toContain(QUERY_KEY);
        expect(shown).not.toContain(USER_PASS);
      }
      expect(model.url).toContain(REDACTED);
    }
  });
});
