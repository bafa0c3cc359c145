import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readEvents, type SseEvent } from "./sse.js";

function streamOf(chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === "string" ? encoder.encode(c) : c);
      controller.close();
    },
  });
}

async function collect(chunks: (string | Uint8Array)[], stopAt?: string) {
  const events: SseEvent[] = [];
  const complete = await readEvents(streamOf(chunks), (e) => {
    events.push({ data: e.data, ...(e.event !== undefined && { event: e.event }) });
    return e.data === stopAt;
  });
  return { events, complete };
}

describe("readEvents", () => {
  it("reads named events, comments, CRLF line ends and multi-line data", async () => {
    const { events } = await collect([
      ": keep-alive\r\n\r\n",
      'event: message_start\r\ndata: {"a":1}\r\n\r\n',
      "data: line one\ndata: line two\n\n",
      "retry: soon\nid: 7\nfoo: bar\ndata: after unknown fields\n\n",
    ]);
    expect(events).toEqual([
      { event: "message_start", data: '{"a":1}' },
      { data: "line one\nline two" },
      { data: "after unknown fields" },
    ]);
  });

  it("stops at the handler's end marker and ignores what follows", async () => {
    const { events, complete } = await collect(["data: 1\n\ndata: [DONE]\n\ndata: 2\n\n"], "[DONE]");
    expect(complete).toBe(true);
    expect(events.map((e) => e.data)).toEqual(["1", "[DONE]"]);
  });

  it("delivers a last event that lacks only its blank line, drops one cut mid-line", async () => {
    expect((await collect(["data: 1\n\ndata: [DONE]\n"], "[DONE]")).complete).toBe(true);
    const cut = await collect(['data: 1\n\ndata: {"partial'], "[DONE]");
    expect(cut.complete).toBe(false);
    expect(cut.events.map((e) => e.data)).toEqual(["1"]);
  });

  it("decodes multi-byte characters split across chunks", async () => {
    const bytes = new TextEncoder().encode("data: héllo — 日本 🎉\n\n");
    const chunks = Array.from(bytes, (b) => new Uint8Array([b]));
    expect((await collect(chunks)).events).toEqual([{ data: "héllo — 日本 🎉" }]);
  });

  it("gives the same events however the bytes are chunked", async () => {
    const body = new TextEncoder().encode(
      'event: a\ndata: {"x":"ü"}\n\n: comment\r\ndata: two\r\ndata: lines\r\n\r\ndata: 日本\n\ndata: [DONE]\n\n',
    );
    const reference = await collect([body], "[DONE]");
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: body.length - 1 })), async (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), body.length];
        const chunks = points.slice(1).map((end, i) => body.subarray(points[i], end));
        expect(await collect(chunks, "[DONE]")).toEqual(reference);
      }),
      { numRuns: 200 },
    );
  });

  it("decodes bytes that are no valid UTF-8 as a whole body would be decoded, however they are cut", async () => {
    // Stray continuation bytes, lead bytes without their continuation, an overlong form, 0xFF,
    // and a character cut at the body's end (one replacement character).
    const body = Buffer.concat([
      Buffer.from("data: a"),
      Buffer.from([0x80, 0xbf, 0xe2, 0x82, 0x41, 0xc0, 0xaf, 0xff, 0xf0, 0x9f, 0x8e, 0x89, 0xed, 0xa0, 0x80]),
      Buffer.from("z\n\ndata: "),
      Buffer.from([0xf0, 0x9f, 0x8e]),
      Buffer.from("\n\n"),
    ]);
    const whole = body
      .toString("utf8")
      .split("\n\n")
      .slice(0, 2)
      .map((e) => ({ data: e.slice(6) }));
    expect((await collect([body])).events).toEqual(whole);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: body.length - 1 })), async (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), body.length];
        const chunks = points.slice(1).map((end, i) => new Uint8Array(body.subarray(points[i], end)));
        expect((await collect(chunks)).events).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a runaway event instead of buffering without end", async () => {
    const huge = `data: ${"x".repeat(17 * 1024 * 1024)}`;
    await expect(collect([huge])).rejects.toThrow(/larger than/);
  });

  // A body whose end arrives only once the reader asks again, as fetch's does.
  function pulled(pieces: (string | Error | "hang")[]): {
    body: ReadableStream<Uint8Array>;
    cancelled: () => boolean;
  } {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          const next = pieces.shift();
          if (next === undefined) controller.close();
          else if (next instanceof Error) controller.error(next);
          else if (next !== "hang") controller.enqueue(new TextEncoder().encode(next));
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    return { body, cancelled: () => cancelled };
  }
  const untilDone = (e: SseEvent) => e.data === "[DONE]";

  it("after the end marker reads a body that is over to its end instead of cancelling it", async () => {
    const { body, cancelled } = pulled(["data: 1\n\ndata: [DONE]\n\n"]);
    expect(await readEvents(body, untilDone)).toBe(true);
    expect(cancelled()).toBe(false);
  });

  it("cancels a body still open after the end marker, drops what follows it, and an error after it changes nothing", async () => {
    const open = pulled(["data: [DONE]\n\n", "hang"]);
    expect(await readEvents(open.body, untilDone)).toBe(true);
    expect(open.cancelled()).toBe(true);

    const seen: string[] = [];
    const more = pulled(["data: [DONE]\n\n", "data: late\n\n", "data: later\n\n"]);
    expect(
      await readEvents(more.body, (e) => {
        seen.push(e.data);
        return untilDone(e);
      }),
    ).toBe(true);
    expect(seen).toEqual(["[DONE]"]);
    expect(more.cancelled()).toBe(true);

    const broken = pulled(["data: [DONE]\n\n", new Error("connection reset")]);
    expect(await readEvents(broken.body, untilDone)).toBe(true);
  });

  it("propagates the handler's error and releases the stream", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("data: 1\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(
      readEvents(body, () => {
        throw new Error("bad event");
      }),
    ).rejects.toThrow("bad event");
    expect(cancelled).toBe(true);
  });
});

describe("readEvents, the less common shapes of the format", () => {
  it("ends lines at a lone CR too, drops a leading byte-order mark, and reads fields with no space or no colon", async () => {
    const body = new TextEncoder().encode(
      '\uFEFFdata:{"a":1}\r\rdata\rdata: x\r\revent:\rdata: plain\n\nid: 3\nevent: named\ndata: [DONE]\r\n\r\n',
    );
    const reference = await collect([body], "[DONE]");
    expect(reference.events).toEqual([
      { data: '{"a":1}' },
      { data: "\nx" },
      { data: "plain" },
      { event: "named", data: "[DONE]" },
    ]);
    expect(reference.complete).toBe(true);
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: body.length - 1 })), async (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), body.length];
        const chunks = points.slice(1).map((end, i) => body.subarray(points[i], end));
        expect(await collect(chunks, "[DONE]")).toEqual(reference);
      }),
      { numRuns: 200 },
    );
  });

  it("drops an event that has no data, and a line cut off by the end of the body", async () => {
    expect((await collect(["event: ping\n\n", "data: 1\n\n", "data: 2"])).events).toEqual([{ data: "1" }]);
  });
});
