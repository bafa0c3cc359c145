/**
 * The Responses API and Gemini providers' costs, measured as bench/providers.ts measures the
 * Chat Completions one: CPU per call against a bare `fetch` loop sending the same bytes to the same
 * local server (answering with recorded replies), and the SSE pipeline's throughput in memory.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { Model, ModelRequest } from "glassloop";
import { parse } from "yaml";
import { readEvents } from "../src/models/http/sse.js";
import { GeminiModel } from "../src/providers/google/definition.js";
import { GeminiAnswer } from "../src/providers/google/response.js";
import { OpenAIResponsesModel } from "../src/providers/openai-responses/definition.js";
import { ResponsesStreamAssembler } from "../src/providers/openai-responses/stream.js";
import { type BenchTable, round } from "./table.js";

const DIR = fileURLToPath(new URL("../test/fixtures/captures/pydantic-ai/", import.meta.url));

interface Exchange {
  response: { parsed_body?: unknown; body?: { string: string } };
}
const cassette = (name: string) =>
  (parse(readFileSync(`${DIR}${name}.yaml`, "utf8")) as { interactions: Exchange[] }).interactions;

/** One provider under test: its model, the raw loop's endpoint, and the recorded replies. */
interface Subject {
  name: string;
  model(url: string): Model;
  json: string;
  sse: string;
  /** The raw loop's URL and headers for a request. */
  raw(url: string, stream: boolean): { url: string; headers: Record<string, string> };
  /** The last event of `sse`, which ends the stream (kept once when the body is repeated). */
  finalEvent: string;
}

const responsesStream =
  cassette("test_openai_responses-test_openai_responses_stream")[1]?.response.body?.string ?? "";
const geminiStream = cassette("test_google-test_google_model_stream")[0]?.response.body?.string ?? "";

const SUBJECTS: Subject[] = [
  {
    name: "openai-responses",
    model: (url) => new OpenAIResponsesModel("gpt-4o", { baseURL: url, apiKey: "sk-bench-123456", env: {} }),
    json: JSON.stringify(
      cassette("test_openai_responses-test_openai_responses_model_simple_response_with_tool_call")[1]
        ?.response.parsed_body,
    ),
    sse: responsesStream,
    raw: (url) => ({
      url: `${url}/responses`,
      headers: { "content-type": "application/json", authorization: "Bearer sk-bench-123456", accept: "*/*" },
    }),
    finalEvent: responsesStream.slice(responsesStream.indexOf("event: response.completed")),
  },
  {
    name: "google",
    model: (url) => new GeminiModel("gemini-2.0-flash", { baseURL: url, apiKey: "g-bench-123456", env: {} }),
    json: JSON.stringify(cassette("test_google-test_google_tool_output")[1]?.response.parsed_body),
    sse: geminiStream,
    raw: (url, stream) => ({
      url: `${url}/models/gemini-2.0-flash:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`,
      headers: { "content-type": "application/json", "x-goog-api-key": "g-bench-123456", accept: "*/*" },
    }),
    finalEvent: geminiStream.slice(geminiStream.lastIndexOf("data: ")),
  },
];

/** Runs every measurement of this section. */
export async function newProvidersBench(): Promise<BenchTable[]> {
  // SSE first, for the reason bench/providers.ts gives (later figures carry the HTTP loops' heap).
  const sse: (string | number)[][] = [];
  for (const subject of SUBJECTS) sse.push(...(await sseRows(subject)));
  const overhead: (string | number)[][] = [];
  for (const subject of SUBJECTS) overhead.push(...(await overheadRows(subject)));
  return [
    {
      title: "Responses API and Gemini providers vs a raw fetch loop (same local server, same bytes)",
      columns: [
        "provider",
        "mode",
        "raw µs",
        "provider µs",
        "raw CPU µs",
        "raw no-follow CPU µs",
        "provider CPU µs",
        "CPU vs raw",
        "CPU vs raw no-follow",
      ],
      rows: overhead,
      notes: [
        "Target: ≤ 1.1× raw CPU. Provider = request mapping (Gemini: schema conversion, cached per tool), retries,",
        "timeouts, SSE parsing and answer assembly; raw = fetch with an AbortController and timer, JSON.parse of the reply.",
        'raw no-follow: the same loop with redirect: "error", as the provider sends it (fetch then skips copying the request).',
        "µs: wall-clock medians per request; CPU: this process (client and server) per request; medians of 120",
        "interleaved rounds of 10. These replies are short (0.6–5 KB): the transport's fixed cost per call weighs more in",
        "the ratio than with the Chat Completions bench's 100 KB stream.",
      ],
    },
    {
      title: "Responses API and Gemini SSE throughput (in memory, 16 KiB chunks, median of 9)",
      columns: ["provider", "pipeline", "MB/s"],
      rows: sse,
      notes: [
        "Target: ≥ 100 MB/s. Input: the recorded stream's events repeated to 8 MB, its final event once.",
      ],
    },
  ];
}

const messages = [
  { role: "user" as const, content: "What is the capital of France?" },
  {
    role: "assistant" as const,
    content: "",
    toolCalls: [{ id: "call_1", name: "get_capital", arguments: '{"country":"France"}' }],
  },
  { role: "tool" as const, toolCallId: "call_1", toolName: "get_capital", content: "Paris" },
];
const tools = [
  {
    name: "get_capital",
    description: "The capital of a country.",
    parameters: {
      type: "object",
      properties: { country: { type: "string" } },
      required: ["country"],
      additionalProperties: false,
    },
  },
];

function startServer(subject: Subject): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const stream = (req.url ?? "").includes("alt=sse") || req.headers["x-bench-stream"] === "1";
      res.writeHead(200, { "content-type": stream ? "text/event-stream" : "application/json" });
      res.end(stream ? subject.sse : subject.json);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` }),
    ),
  );
}

async function overheadRows(subject: Subject): Promise<(string | number)[][]> {
  const { server, url } = await startServer(subject);
  // The Responses API streams at the same URL: a header tells the bench server which reply to give.
  const model = subject.model(url);
  const signal = new AbortController().signal;
  const request = (stream: boolean): ModelRequest => ({
    instructions: "You are a bench.",
    messages,
    tools,
    stream,
    signal,
  });
  const streamHeader: Record<string, string> =
    subject.name === "openai-responses" ? { "x-bench-stream": "1" } : {};
  const rows: (string | number)[][] = [];
  for (const stream of [false, true]) {
    const req = request(stream);
    let body: unknown;
    await model.generate(req, { onRequest: (w) => (body = w.body), onDelta: () => {} }).catch(() => {});
    const target = subject.raw(url, stream);
    // `follow`: fetch's default. The provider sends `redirect: "error"` (it never follows one), which
    // also spares fetch a copy of the request; the second raw loop does the same, like for like.
    const raw = async (redirect: "follow" | "error") => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 600_000);
      const res = await fetch(target.url, {
        method: "POST",
        headers: { ...target.headers, ...(stream ? streamHeader : {}) },
        body: JSON.stringify(body),
        signal: controller.signal,
        redirect,
      });
      if (!stream) await res.json();
      else {
        const text = await res.text();
        for (const event of text.split(/\r?\n\r?\n/)) {
          const data = event.split(/\r?\n/).find((l) => l.startsWith("data: "));
          if (data) JSON.parse(data.slice(6));
        }
      }
      clearTimeout(timer);
    };
    const headersModel = stream && subject.name === "openai-responses" ? withHeader(subject, url) : model;
    const ours = async () =>
      void (await headersModel.generate(req, { onRequest: () => {}, onDelta: () => {} }));
    const loops = { raw: () => raw("follow"), rawNoFollow: () => raw("error"), ours };
    const kinds = ["raw", "rawNoFollow", "ours"] as const;
    // Short batches in many rounds, the order rotating, so the shared machine's load hits every
    // loop alike.
    const n = 10;
    const wall = { raw: [] as number[], rawNoFollow: [] as number[], ours: [] as number[] };
    const cpu = { raw: [] as number[], rawNoFollow: [] as number[], ours: [] as number[] };
    for (let r = 0; r < 121; r++) {
      const order = [...kinds.slice(r % 3), ...kinds.slice(0, r % 3)];
      for (const kind of r % 2 === 0 ? order : order.reverse()) {
        const cpuStart = process.cpuUsage();
        const started = performance.now();
        for (let i = 0; i < n; i++) await loops[kind]();
        const used = process.cpuUsage(cpuStart);
        if (r === 0) continue;
        wall[kind].push(((performance.now() - started) * 1000) / n);
        cpu[kind].push((used.user + used.system) / n);
      }
    }
    const c = { raw: median(cpu.raw), rawNoFollow: median(cpu.rawNoFollow), ours: median(cpu.ours) };
    rows.push([
      subject.name,
      stream ? "streaming (SSE)" : "JSON",
      round(median(wall.raw), 0),
      round(median(wall.ours), 0),
      round(c.raw, 0),
      round(c.rawNoFollow, 0),
      round(c.ours, 0),
      round(c.ours / c.raw, 3),
      round(c.ours / c.rawNoFollow, 3),
    ]);
  }
  server.close();
  return rows;
}

function withHeader(subject: Subject, url: string): Model {
  return new OpenAIResponsesModel("gpt-4o", {
    baseURL: url,
    apiKey: "sk-bench-123456",
    env: {},
    headers: { "x-bench-stream": subject.name === "openai-responses" ? "1" : "0" },
  });
}

async function sseRows(subject: Subject): Promise<(string | number)[][]> {
  const events = subject.sse.slice(0, subject.sse.length - subject.finalEvent.length);
  const copies = Math.ceil((8 * 1024 * 1024) / events.length);
  const bytes = new TextEncoder().encode(`${events.repeat(copies)}${subject.finalEvent}`);
  const mb = bytes.length / 1024 / 1024;
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 16 * 1024) chunks.push(bytes.subarray(i, i + 16 * 1024));
  const streamOf = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(c);
        controller.close();
      },
    });
  const pipeline = async () => {
    if (subject.name === "openai-responses") {
      const assembler = new ResponsesStreamAssembler("bench", () => {});
      await readEvents(streamOf(), (e) => assembler.push(e.data, e.event));
      assembler.finish();
    } else {
      const answer = new GeminiAnswer("bench", () => {});
      await readEvents(streamOf(), (e) => {
        answer.add(JSON.parse(e.data));
        return answer.finished;
      });
      answer.finish(true);
    }
  };
  const payloads: string[] = [];
  await readEvents(streamOf(), (e) => void payloads.push(e.data));
  const ceiling = () => {
    for (const p of payloads) JSON.parse(p);
  };
  const measure = async (fn: () => Promise<void> | void) => {
    for (let i = 0; i < 5; i++) await fn();
    const runs: number[] = [];
    for (let i = 0; i < 9; i++) {
      const started = performance.now();
      await fn();
      runs.push(mb / ((performance.now() - started) / 1000));
    }
    return median(runs);
  };
  const full = await measure(pipeline);
  const json = await measure(ceiling);
  return [
    [subject.name, "readEvents + assembler", round(full, 0)],
    [subject.name, "JSON.parse of the same payloads alone (ceiling)", round(json, 0)],
  ];
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
}
