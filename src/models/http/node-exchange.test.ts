import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelObserver } from "../model.js";
import { type HttpCall, postEvents } from "./transport.js";

// What follows a stream's end marker, on the node:http path: the reader is answered at the
// marker, and the connection is kept for the next call when the body's end follows soon after it.
type After = "end-later" | "never-end" | "flood";

let server: Server;
let url: string;
const sockets: Socket[] = [];
const ended: boolean[] = [];
let finished: Promise<void> = Promise.resolve();
/** The connection the last request came on. */
let used: Socket | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    used = req.socket;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write('data: {"n":1}\n\ndata: [DONE]\n\n');
    const index = ended.push(false) - 1;
    finished = new Promise((done) => res.on("close", done));
    follow(res, req.url?.slice(1) as After, () => {
      ended[index] = true;
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on("connection", (socket) => sockets.push(socket));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

function follow(res: ServerResponse, after: After, end: () => void): void {
  if (after === "end-later")
    setTimeout(() => {
      end();
      res.end();
    }, 100);
  if (after === "flood") res.write(`data: ${"x".repeat(128 * 1024)}\n\n`);
}

const observer: ModelObserver = { onRequest: () => {} };
function events(after: After): Promise<unknown> {
  const call: HttpCall = {
    provider: "test",
    url: `${url}/${after}`,
    headers: {},
    body: {},
    signal: new AbortController().signal,
    observer,
  };
  return postEvents(call, () => (event: { data: string }) => event.data === "[DONE]");
}

const closed = (socket: Socket) =>
  new Promise<void>((done) => (socket.destroyed ? done() : socket.on("close", () => done())));

describe("the rest of a body after the end marker (node:http)", () => {
  it("answers at the marker and keeps the connection when the body ends soon after it", async () => {
    const before = sockets.length;
    expect(await events("end-later")).toMatchObject({ complete: true });
    // Answered before the body ended: nobody waits for the rest.
    expect(ended.at(-1)).toBe(false);
    await finished;
    await new Promise((done) => setTimeout(done, 50));
    expect(await events("end-later")).toMatchObject({ complete: true });
    await finished;
    // One connection for both calls: the first's was not dropped, so the second reused it.
    expect(sockets.length - before).toBe(1);
  });

  it("drops a connection whose body stays open after the marker", async () => {
    expect(await events("never-end")).toMatchObject({ complete: true });
    await closed(used as Socket);
    expect(ended.at(-1)).toBe(false);
  });

  it("drops a connection that keeps sending after the marker", async () => {
    expect(await events("flood")).toMatchObject({ complete: true });
    await closed(used as Socket);
  });
});
