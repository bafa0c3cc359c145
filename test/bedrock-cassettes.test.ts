/**
 * Amazon Bedrock Converse and ConverseStream replaying real recorded traffic (pydantic-ai's
 * cassettes): the body glassloop sends must equal the recorded one, the recorded answers (JSON and
 * the binary event stream, cut at random byte offsets) must parse into what they hold, and every
 * request must carry a SigV4 signature over exactly the bytes, path and host that were sent.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { Agent, AuthenticationError, type ModelRequest, ProviderError, tool } from "glassloop";
import { BedrockModel, CloudCredentialsError, ProviderProtocolError, RateLimitError } from "glassloop/models";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { signatureV4 } from "../src/providers/bedrock/sigv4.js";
import { bedrockReply, loadBedrockCassette } from "./helpers/bedrock-cassettes.js";
import { type RecordedRequest, startWireServer, type WireServer } from "./helpers/wire-server.js";

let server: WireServer;
beforeAll(async () => {
  server = await startWireServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const KEYS = {
  AWS_ACCESS_KEY_ID: "AKIDTESTEXAMPLE",
  AWS_SECRET_ACCESS_KEY: "secret/test+KEY",
  AWS_REGION: "us-east-1",
};

function model(id: string, options: Partial<ConstructorParameters<typeof BedrockModel>[1]> = {}) {
  return new BedrockModel(id, {
    baseURL: server.url,
    env: { ...KEYS, AWS_SESSION_TOKEN: "session-token-xyz" },
    http: { retry: { maxRetries: 0 } },
    ...options,
  });
}

const ask = (text: string, extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: "user", content: text }],
  tools: [],
  signal: AbortSignal.timeout(10_000),
  ...extra,
});

/** Recomputes the signature of a received request: it must sign what arrived, byte for byte. */
function expectSigned(request: RecordedRequest | undefined, secret = KEYS.AWS_SECRET_ACCESS_KEY) {
  if (!request) throw new Error("no request arrived");
  const authorization = String(request.headers.authorization);
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/us-east-1\/bedrock\/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/.exec(
      authorization,
    );
  expect(match, authorization).not.toBeNull();
  const names = (match?.[3] ?? "").split(";");
  const signed = Object.fromEntries(names.map((n) => [n, String(request.headers[n])]));
  const date = String(request.headers["x-amz-date"]);
  const at = new Date(
    `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`,
  );
  const path = request.path.split("?")[0] ?? "";
  const expected = signatureV4(
    { method: "POST", path, headers: signed, body: request.raw },
    { accessKeyId: match?.[1] ?? "", secretAccessKey: secret },
    { region: "us-east-1", service: "bedrock", date: at },
  );
  expect(authorization).toBe(expected);
  return names;
}

describe("Bedrock Converse replaying recorded traffic", () => {
  it("a plain answer (Nova Micro): the body equals the recording, the answer parses, the call is signed", async () => {
    const [exchange] = loadBedrockCassette("test_bedrock_model");
    server.enqueue(bedrockReply(exchange));
    const response = await model("us.amazon.nova-micro-v1:0").generate(
      ask("Hello!", { instructions: "You are a chatbot." }),
      { onRequest: () => {} },
    );
    const sent = server.requests[0];
    expect(sent?.path).toBe("/model/us.amazon.nova-micro-v1%3A0/converse");
    expect(sent?.body).toEqual(exchange?.body);
    expect(response.text).toMatch(/^Hello! How can I assist you today\?/);
    expect(response.usage).toEqual({ inputTokens: 7, outputTokens: 30 });
    expect(response.finishReason).toBe("stop");
    expect(expectSigned(sent)).toEqual(["host", "x-amz-date", "x-amz-security-token"]);
    expect(sent?.headers["x-amz-security-token"]).toBe("session-token-xyz");
  });

  it("a tool conversation with Anthropic thinking replays as an agent run: the second request carries the signed reasoning back", async () => {
    const exchanges = loadBedrockCassette("test_bedrock_anthropic_tool_with_thinking");
    server.handler = (_r, i) => bedrockReply(exchanges[i]);
    const agent = new Agent({
      model: model("us.anthropic.claude-3-7-sonnet-20250219-v1:0", { thinking: { budgetTokens: 1024 } }),
      tools: [
        tool({
          name: "get_user_country",
          description: "The user's country.",
          input: z.object({}).strict(),
          run: () => "Mexico",
        }),
      ],
    });
    const result = await agent.run("What is the largest city in the user country?");
    expect(result.output).toMatch(/^Based on your location in Mexico, the largest city is Mexico City/);
    expect(server.requests).toHaveLength(2);
    for (const [i, exchange] of exchanges.entries()) {
      const sent = server.requests[i]?.body as Record<string, unknown>;
      expect(sent.messages).toEqual(exchange.body.messages);
      expect(sent.additionalModelRequestFields).toEqual(exchange.body.additionalModelRequestFields);
      const tools = (sent.toolConfig as { tools: { toolSpec: { name: string } }[] }).tools;
      expect(tools.map((t) => t.toolSpec.name)).toEqual(["get_user_country"]);
    }
    expect(result.usage.inputTokens).toBe(397 + 539);
  });

  it("prompt caching: cache points after the system prompt, the tools and the conversation; cache writes and reads counted", async () => {
    const exchanges = loadBedrockCassette("test_bedrock_cache_write_and_read");
    server.handler = (_r, i) => bedrockReply(exchanges[i]);
    const m = model("us.anthropic.claude-sonnet-4-5-20250929-v1:0", { cache: true });
    const request = ask("What is 10 + 11?", {
      instructions: "Answer with a number.",
      tools: [{ name: "catalog_lookup", description: "x", parameters: { type: "object", properties: {} } }],
    });
    const first = await m.generate(request, { onRequest: () => {} });
    const second = await m.generate(request, { onRequest: () => {} });
    expect(first.usage).toEqual({ inputTokens: 2 + 1322, outputTokens: 5, cacheWriteInputTokens: 1322 });
    expect(second.usage).toEqual({ inputTokens: 2 + 1322, outputTokens: 5, cachedInputTokens: 1322 });
    const sent = server.requests[0]?.body as {
      system: object[];
      messages: { content: object[] }[];
      toolConfig: { tools: object[] };
    };
    const point = { cachePoint: { type: "default" } };
    expect(sent.system.at(-1)).toEqual(point);
    expect(sent.toolConfig.tools.at(-1)).toEqual(point);
    expect(sent.messages.at(-1)?.content.at(-1)).toEqual(point);
    // The same placement as the recorded request.
    const recorded = exchanges[0]?.body as typeof sent;
    expect(recorded.system.at(-1)).toEqual(point);
    expect(recorded.toolConfig.tools.at(-1)).toEqual(point);
  });

  it("the recorded 400 for an unknown model is a ProviderError with Bedrock's message", async () => {
    const [exchange] = loadBedrockCassette("test_bedrock_error");
    server.enqueue(bedrockReply(exchange));
    const error = await model("us.does-not-exist-model-v1:0")
      .generate(ask("hello"), { onRequest: () => {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).status).toBe(400);
    expect((error as Error).message).toContain("The provided model identifier is invalid.");
  });
});

describe("Bedrock ConverseStream replaying recorded event streams", () => {
  it.each([0, 1, 2, 3])(
    "Nova Micro's recorded stream, cut at random offsets (seed %i), arrives as text deltas",
    async (seed) => {
      const [exchange] = loadBedrockCassette("test_bedrock_model_stream");
      server.enqueue(bedrockReply(exchange, seed, 12));
      const deltas: string[] = [];
      const response = await model("us.amazon.nova-micro-v1:0").generate(
        ask("What is the capital of France?", {
          stream: true,
          temperature: 0,
          instructions: "You are a helpful chatbot.",
        }),
        { onRequest: () => {}, onDelta: (d) => d.type === "text" && deltas.push(d.text) },
      );
      const sent = server.requests[0];
      expect(sent?.path).toBe("/model/us.amazon.nova-micro-v1%3A0/converse-stream");
      expect(sent?.headers.accept).toBe("application/vnd.amazon.eventstream");
      expect(sent?.body).toEqual(exchange?.body);
      expect(response.text).toMatch(/^The capital of France is Paris\./);
      expect(deltas.join("")).toBe(response.text);
      expect(deltas.length).toBeGreaterThan(5);
      expect(response.finishReason).toBe("stop");
      expect(response.usage.outputTokens).toBeGreaterThan(0);
      expectSigned(sent);
    },
  );

  it("Claude's recorded thinking stream keeps the reasoning text and its signature", async () => {
    const [exchange] = loadBedrockCassette("test_bedrock_model_thinking_part_stream");
    server.enqueue(bedrockReply(exchange, 7, 20));
    const response = await model("us.anthropic.claude-sonnet-4-20250514-v1:0", {
      thinking: { budgetTokens: 1024 },
    }).generate(ask("Hello", { stream: true }), { onRequest: () => {} });
    expect(server.requests[0]?.body).toEqual(exchange?.body);
    const [part] = response.reasoning ?? [];
    expect(part?.provider).toBe("bedrock");
    expect(part?.text.length).toBeGreaterThan(20);
    expect(part?.signature?.length).toBeGreaterThan(20);
    expect(response.text.length).toBeGreaterThan(0);
  });
});

/** An event-stream message as AWS frames it, for the codec's fault cases. */
function frame(headers: Record<string, string>, payload: string): Buffer {
  const parts = Object.entries(headers).map(([name, value]) => {
    const n = Buffer.from(name);
    const v = Buffer.from(value);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(v.length);
    return Buffer.concat([Buffer.from([n.length]), n, Buffer.from([7]), len, v]);
  });
  const head = Buffer.concat(parts);
  const body = Buffer.from(payload);
  const total = 12 + head.length + body.length + 4;
  const prelude = Buffer.alloc(8);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(head.length, 4);
  const preludeCrc = Buffer.alloc(4);
  preludeCrc.writeUInt32BE(crc32(prelude));
  const message = Buffer.concat([prelude, preludeCrc, head, body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(message));
  return Buffer.concat([message, crc]);
}

const event = (type: string, payload: object) =>
  frame(
    { ":event-type": type, ":content-type": "application/json", ":message-type": "event" },
    JSON.stringify(payload),
  );

describe("the event-stream framing, checked", () => {
  const streamed = (bytes: Buffer) => {
    server.enqueue({ headers: { "content-type": "application/vnd.amazon.eventstream" }, text: bytes });
    return model("us.amazon.nova-micro-v1:0")
      .generate(ask("hi", { stream: true }), { onRequest: () => {} })
      .catch((e: unknown) => e);
  };
  const start = event("messageStart", { role: "assistant" });
  const delta = event("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Hi" } });

  it("a message whose checksum does not match is a ProviderProtocolError, not half-read text", async () => {
    const bad = Buffer.from(delta);
    bad[bad.length - 6] = (bad[bad.length - 6] ?? 0) ^ 0xff;
    const error = await streamed(Buffer.concat([start, bad]));
    expect(error).toBeInstanceOf(ProviderProtocolError);
    expect((error as Error).message).toMatch(/checksum does not match/);
  });

  it("a prelude that claims an impossible length is refused", async () => {
    const bad = Buffer.from(start);
    bad.writeUInt32BE(3, 0);
    const error = await streamed(bad);
    expect(error).toBeInstanceOf(ProviderProtocolError);
  });

  it("a stream cut inside a message, or before messageStop, is an error", async () => {
    const error = await streamed(Buffer.concat([start, delta.subarray(0, 20)]));
    expect(error).toBeInstanceOf(ProviderError);
  });

  it("a throttlingException in the stream is a RateLimitError", async () => {
    const throttled = frame(
      {
        ":exception-type": "throttlingException",
        ":content-type": "application/json",
        ":message-type": "exception",
      },
      JSON.stringify({ message: "Too many requests, please wait before trying again." }),
    );
    const error = await streamed(Buffer.concat([start, throttled]));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as Error).message).toContain("Too many requests");
  });

  it("a tool use streams its input in pieces and ends as one call", async () => {
    server.enqueue({
      headers: { "content-type": "application/vnd.amazon.eventstream" },
      text: Buffer.concat([
        start,
        event("contentBlockStart", {
          contentBlockIndex: 0,
          start: { toolUse: { toolUseId: "tooluse_1", name: "add" } },
        }),
        event("contentBlockDelta", { contentBlockIndex: 0, delta: { toolUse: { input: '{"a":' } } }),
        event("contentBlockDelta", { contentBlockIndex: 0, delta: { toolUse: { input: "2}" } } }),
        event("contentBlockStop", { contentBlockIndex: 0 }),
        event("messageStop", { stopReason: "tool_use" }),
        event("metadata", { usage: { inputTokens: 5, outputTokens: 3 }, metrics: { latencyMs: 1 } }),
      ]),
    });
    const response = await model("m").generate(ask("hi", { stream: true }), { onRequest: () => {} });
    expect(response.toolCalls).toEqual([{ id: "tooluse_1", name: "add", arguments: '{"a":2}' }]);
    expect(response.finishReason).toBe("tool_calls");
  });
});

describe("AWS credentials", () => {
  it("none anywhere is a CloudCredentialsError naming what to set, before anything is sent", async () => {
    const empty = mkdtempSync(join(tmpdir(), "gl-aws-"));
    const m = new BedrockModel("m", { baseURL: server.url, env: { AWS_REGION: "us-east-1", HOME: empty } });
    const error = await m.generate(ask("hi"), { onRequest: () => {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudCredentialsError);
    expect((error as Error).message).toMatch(/AWS_ACCESS_KEY_ID/);
    expect(server.requests).toHaveLength(0);
  });

  it("no region is a CloudCredentialsError naming AWS_REGION", () => {
    const empty = mkdtempSync(join(tmpdir(), "gl-aws-"));
    expect(() => new BedrockModel("m", { env: { HOME: empty } })).toThrow(/AWS_REGION/);
  });

  it("expired credentials are refused before sending", async () => {
    const m = model("m", {
      credentials: { accessKeyId: "A", secretAccessKey: "B", expiration: new Date(Date.now() - 1000) },
    });
    const error = await m.generate(ask("hi"), { onRequest: () => {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudCredentialsError);
    expect((error as Error).message).toMatch(/expired/);
    expect(server.requests).toHaveLength(0);
  });

  it("wrong credentials: AWS's 403 is an AuthenticationError, and the secret appears nowhere", async () => {
    server.enqueue({
      status: 403,
      headers: { "x-amzn-errortype": "UnrecognizedClientException" },
      json: { message: "The security token included in the request is invalid." },
    });
    const error = await model("m")
      .generate(ask("hi"), { onRequest: () => {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(JSON.stringify({ m: (error as Error).message, s: (error as Error).stack })).not.toContain(
      KEYS.AWS_SECRET_ACCESS_KEY,
    );
  });

  it("a profile of the shared credentials file signs the call", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gl-aws-"));
    const file = join(dir, "credentials");
    writeFileSync(
      file,
      "[default]\naws_access_key_id = AKIDDEFAULT\n\n[work]\naws_access_key_id = AKIDWORK\naws_secret_access_key = work/secret\n",
    );
    const [exchange] = loadBedrockCassette("test_bedrock_model");
    server.enqueue(bedrockReply(exchange));
    await new BedrockModel("us.amazon.nova-micro-v1:0", {
      baseURL: server.url,
      env: { AWS_REGION: "us-east-1", AWS_PROFILE: "work", AWS_SHARED_CREDENTIALS_FILE: file },
    }).generate(ask("Hello!"), { onRequest: () => {} });
    expect(String(server.requests[0]?.headers.authorization)).toContain("Credential=AKIDWORK/");
    expectSigned(server.requests[0], "work/secret");
  });

  it("a credentials provider function (e.g. the AWS SDK's chain) is asked before each call", async () => {
    let asked = 0;
    const [exchange] = loadBedrockCassette("test_bedrock_model");
    server.enqueue(bedrockReply(exchange), bedrockReply(exchange));
    const m = model("us.amazon.nova-micro-v1:0", {
      credentials: async () => ({
        accessKeyId: `AKID${++asked}`,
        secretAccessKey: KEYS.AWS_SECRET_ACCESS_KEY,
      }),
    });
    await m.generate(ask("Hello!"), { onRequest: () => {} });
    await m.generate(ask("Hello!"), { onRequest: () => {} });
    expect(asked).toBe(2);
    expectSigned(server.requests[1]);
  });

  it("a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK) is sent as a bearer token instead of a signature", async () => {
    const [exchange] = loadBedrockCassette("test_bedrock_model");
    server.enqueue(bedrockReply(exchange));
    await new BedrockModel("us.amazon.nova-micro-v1:0", {
      baseURL: server.url,
      env: { AWS_REGION: "us-east-1", AWS_BEARER_TOKEN_BEDROCK: "bedrock-api-key-abc" },
    }).generate(ask("Hello!"), { onRequest: () => {} });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer bedrock-api-key-abc");
    expect(server.requests[0]?.headers["x-amz-date"]).toBeUndefined();
  });

  it('"bedrock:<model id>" resolves from the environment and is priced as its Anthropic model', async () => {
    const { resolveModel } = await import("glassloop");
    const m = resolveModel("bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0", KEYS) as BedrockModel;
    expect(m.region).toBe("us-east-1");
    expect(m.url).toBe(
      "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse",
    );
    expect(m.price).toMatchObject({ inputPerMTok: 3, outputPerMTok: 15 });
    expect(m.contextWindow).toBe(200_000);
  });
});
