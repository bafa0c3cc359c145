import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Model, ModelObserver, ModelRequest, ModelResponse } from "glassloop";
import { PostgresStore } from "glassloop/postgres";
import {
  createHandler,
  PostgresServeLog,
  type ServeHandler,
  type ServeLog,
  startServer,
} from "glassloop/serve";
import { SqliteStore, type Store } from "glassloop/store";
import { frame } from "../src/serve/sse.js";
import { uiChunks } from "../src/serve/ui-stream.js";
import { postgresInstalled, startCluster } from "../test/helpers/postgres-cluster.js";
import { type BenchTable, round } from "./table.js";

const STREAMS = 200;
const DELTAS = 100;
const DELTA = "lorem ipsum dolor ";
const TOKEN = "bench-token-0123456789";

/** Streams DELTAS text deltas, yielding to the event loop between them, like a fast provider. */
class MockStreamModel implements Model {
  readonly id = "mock:stream";
  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    observer.onRequest({ body: { model: this.id, messages: request.messages }, attempt: 1 });
    for (let i = 0; i < DELTAS; i++) {
      await new Promise((r) => setImmediate(r));
      if (request.stream) observer.onDelta?.({ type: "text", text: DELTA });
    }
    return {
      text: DELTA.repeat(DELTAS),
      toolCalls: [],
      usage: { inputTokens: 10, outputTokens: DELTAS },
      finishReason: "stop",
    };
  }
}

/** The Node adapter written by hand on node:http (the alternative to @hono/node-server). */
async function startPlain(handler: ServeHandler): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const request = new Request(`http://${req.headers.host}${req.url}`, {
      method: req.method as string,
      headers,
      ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
    });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        if (!res.write(chunk)) await once(res, "drain");
      }
    }
    res.end();
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

interface LoadResult {
  seconds: number;
  complete: number;
  lost: number;
  duplicated: number;
  peakRssMb: number;
  rssAfterMb: number;
  events: number;
}

/** STREAMS concurrent chats, each read to the end and checked event by event. */
async function load(url: string, startRss: number): Promise<LoadResult> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: STREAMS }, async (_, i) => {
      const res = await fetch(`${url}api/chat`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          id: `bench-${i}-${Date.now()}`,
          messages: [{ role: "user", parts: [{ type: "text", text: "go" }] }],
        }),
      });
      const text = await res.text();
      const seqs: number[] = [];
      let deltas = "";
      let finished = false;
      for (const block of text.split("\n\n")) {
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) seqs.push(Number(line.slice(line.lastIndexOf("/") + 1)));
          if (line.startsWith("data: {")) {
            const chunk = JSON.parse(line.slice(6)) as { type: string; delta?: string };
            if (chunk.type === "text-delta") deltas += chunk.delta;
            if (chunk.type === "finish") finished = true;
          }
        }
      }
      const duplicated = seqs.length - new Set(seqs).size;
      const ordered = seqs.every((s, k) => k === 0 || s > (seqs[k - 1] as number));
      const whole = deltas === DELTA.repeat(DELTAS);
      return {
        complete: finished && whole && ordered && text.endsWith("data: [DONE]\n\n"),
        lost: whole ? 0 : 1,
        duplicated,
        events: seqs.length,
      };
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const mb = (n: number) => round((n - startRss) / 1024 / 1024, 1);
  return {
    seconds,
    complete: results.filter((r) => r.complete).length,
    lost: results.reduce((n, r) => n + r.lost, 0),
    duplicated: results.reduce((n, r) => n + r.duplicated, 0),
    peakRssMb: mb(peak),
    rssAfterMb: mb(process.memoryUsage().rss),
    events: results.reduce((n, r) => n + r.events, 0),
  };
}

function handlerIn(dir: string, name: string): ServeHandler {
  return handlerOn(new SqliteStore({ path: join(dir, `${name}-store.db`) }), join(dir, `${name}-serve.db`));
}

function handlerOn(store: Store, log: ServeLog | string): ServeHandler {
  return createHandler({
    agents: { mock: () => ({ model: new MockStreamModel() }) },
    auth: { tokens: { bench: TOKEN } },
    store,
    log,
    limits: { maxActiveRuns: 10_000, requestsPerMinute: 1_000_000 },
    page: false,
  });
}

/** The same load on a Postgres store and log (a throwaway durable cluster), when Postgres is installed. */
async function postgresRow(): Promise<(string | number)[] | undefined> {
  if (!postgresInstalled()) return undefined;
  const cluster = await startCluster({ durable: true });
  try {
    const store = await PostgresStore.connect({ url: cluster.url });
    const log = await PostgresServeLog.connect({ url: cluster.url });
    const server = await startServer({ handler: handlerOn(store, log) });
    try {
      await load(server.url, process.memoryUsage().rss); // warm up
      globalThis.gc?.();
      const r = await load(server.url, process.memoryUsage().rss);
      return [
        "@hono/node-server, Postgres store + log",
        `${r.complete}/${STREAMS}`,
        r.lost,
        r.duplicated,
        round(r.seconds, 2),
        round(r.events / r.seconds, 0),
        r.peakRssMb,
        r.rssAfterMb,
      ];
    } finally {
      await server.close();
      await Promise.all([log.close(), store.close()]);
    }
  } finally {
    cluster.stop();
  }
}

/** Per-event encoding: glassloop's encoder and framing against SSE bytes written by hand. */
function encoding(): (string | number)[][] {
  const ctx = { runId: "run_00000000-0000-0000-0000-000000000000", chatId: "c", agent: "a", model: "m" };
  const n = 200_000;
  let bytes = 0;
  let started = performance.now();
  for (let i = 0; i < n; i++) {
    const entry = {
      seq: i,
      item: {
        kind: "event" as const,
        event: { type: "text_delta" as const, runId: ctx.runId, time: 0, step: 1, text: DELTA },
        part: "text-0-0",
      },
    };
    bytes += frame(ctx.runId, entry, uiChunks(entry.item, ctx)).length;
  }
  const ours = ((performance.now() - started) * 1e6) / n;
  const oursBytes = bytes / n;
  bytes = 0;
  started = performance.now();
  for (let i = 0; i < n; i++)
    bytes += `data: {"type":"text-delta","id":"t","delta":${JSON.stringify(DELTA)}}\n\n`.length;
  const hand = ((performance.now() - started) * 1e6) / n;
  const handBytes = bytes / n;
  return [
    ["glassloop (uiChunks + frame, with id:)", round(ours, 0), round(oursBytes, 0)],
    ["hand-written SSE (data: only)", round(hand, 0), round(handBytes, 0)],
  ];
}

/** 200 concurrent streams over loopback against a mock model, on both Node adapters. */
export async function serveBench(): Promise<BenchTable[]> {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-bench-serve-"));
  const rows: (string | number)[][] = [];
  try {
    for (const adapter of ["@hono/node-server", "node:http by hand"] as const) {
      const handler = handlerIn(dir, adapter === "@hono/node-server" ? "hono" : "plain");
      const started =
        adapter === "@hono/node-server"
          ? await startServer({ handler }).then((s) => ({ url: s.url, close: () => s.close() }))
          : await startPlain(handler).then((s) => ({
              url: s.url,
              close: async () => {
                s.server.closeAllConnections();
                s.server.close();
                await handler.close();
              },
            }));
      await load(started.url, process.memoryUsage().rss); // warm up
      globalThis.gc?.();
      const r = await load(started.url, process.memoryUsage().rss);
      rows.push([
        adapter,
        `${r.complete}/${STREAMS}`,
        r.lost,
        r.duplicated,
        round(r.seconds, 2),
        round(r.events / r.seconds, 0),
        r.peakRssMb,
        r.rssAfterMb,
      ]);
      await started.close();
    }
    const pg = await postgresRow();
    if (pg) rows.push(pg);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return [
    {
      title: `serve: ${STREAMS} concurrent useChat streams over loopback (mock model, ${DELTAS} deltas each)`,
      columns: [
        "adapter",
        "complete",
        "lost",
        "duplicated",
        "seconds",
        "events/s",
        "peak RSS +MB",
        "RSS after +MB",
      ],
      rows,
      notes: [
        "Each stream: POST /api/chat, read to [DONE]; complete = every delta in order, finish, ids strictly increasing.",
        "RSS is the whole bench process (server and 200 clients), relative to before the measured round.",
        "The SQLite rows use files in a temporary folder; the Postgres row a throwaway cluster with fsync on (pool of 10).",
      ],
    },
    {
      title: "serve: per-event encoding of a text delta",
      columns: ["encoder", "ns/event", "bytes/event"],
      rows: encoding(),
      notes: [
        "glassloop's frame carries `id: <runId>/<seq>` for Last-Event-ID; that is most of the extra bytes.",
      ],
    },
  ];
}
