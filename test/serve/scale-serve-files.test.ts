/**
 * Files on runs served by scale-out workers: a message's images and documents pass the server's
 * one check (`AttachmentRules`), travel in the enqueued run's input to a real `glassloop worker`,
 * reach its model as the same message parts as a run driven in the server, and stay in the
 * session in the workers' store; what a local server refuses, a scale server refuses alike.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../../src/index.js";
import type { ScaleClient } from "../../src/scale/index.js";
import { SqliteServeLog } from "../../src/serve/sqlite-serve-log.js";
import { SqliteStore } from "../../src/store/sqlite/sqlite-store.js";
import { FunctionModel } from "../../src/testing.js";
import { POSTGRES_SKIP } from "../helpers/postgres.js";
import { freshDatabase, type TestWorker } from "../scale/scale-harness.js";
import scaleModule from "./fixtures/scale-module.js";
import { ALICE, BOB, parseSse, type Served, serve, served } from "./harness.js";
import { chunksOf, prepareScaleWorkers, spawnScaleWorker, textOf } from "./scale-workers.js";

const alice = { authorization: `Bearer ${ALICE}`, "content-type": "application/json" };
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n").toString("base64");
const PNG = Buffer.from("\x89PNG\r\n\x1a\n0000").toString("base64");
const MAX_BODY = 8 * 1024 * 1024;

type FileSent = { type: "file"; mediaType: string; url: string; filename?: string };
const send = (chatId: string, text: string, files: FileSent[] = []) =>
  JSON.stringify({
    id: chatId,
    agent: "support",
    messages: [{ id: `u-${text}`, role: "user", parts: [{ type: "text", text }, ...files] }],
  });
const inline = (mediaType: string, data: string, filename?: string): FileSent => ({
  type: "file",
  mediaType,
  url: `data:${mediaType};base64,${data}`,
  ...(filename !== undefined && { filename }),
});

describe.skipIf(POSTGRES_SKIP)("files on runs served by scale-out workers", () => {
  let url: string;
  let worker: TestWorker;
  let client: ScaleClient;
  let scaled: Served;
  let local: Served;
  const localSeen: Message[][] = [];

  beforeAll(async () => {
    await prepareScaleWorkers();
    url = await freshDatabase();
    worker = spawnScaleWorker("wf", url, { SCALE_SERVE_DELAY_MS: "5" });
    const { ScaleClient } = await import("../../src/scale/index.js");
    client = await ScaleClient.connect({ url, pollMs: 50 });
    const log = new SqliteServeLog(":memory:");
    const store = new SqliteStore({ path: ":memory:" });
    const attachments = { allowUrls: ["https://files.example.test/pub/"], maxFiles: 3 };
    scaled = served(
      {
        agents: scaleModule.agents,
        scale: { client, pollMs: 30 },
        limits: { maxBodyBytes: MAX_BODY },
        attachments,
      },
      store,
      log,
      () => {
        log.close();
        store.close();
      },
    );
    // The same rules on a server that runs its turns itself: what it refuses, the scale one must.
    local = serve({
      agents: {
        support: () => ({
          model: new FunctionModel((request) => {
            localSeen.push([...(request.messages as Message[])]);
            return { text: "local" };
          }),
        }),
      },
      limits: { maxBodyBytes: MAX_BODY },
      attachments,
    });
    await Promise.all([scaled.handler.ready, worker.ready]);
  }, 60_000);

  afterAll(async () => {
    await scaled?.close();
    await local?.close();
    await client?.close();
    worker?.child.kill("SIGTERM");
    await worker?.exited;
  });

  it("an image and a PDF reach the worker's model as the message's parts, stay in the workers' session, and show on reload", async () => {
    const res = await scaled.fetch("/api/chat", {
      method: "POST",
      headers: alice,
      body: send("f1", "what files", [
        inline("image/png", PNG),
        inline("application/pdf", PDF, "q3.pdf"),
        { type: "file", mediaType: "application/pdf", url: "https://files.example.test/pub/a.pdf" },
      ]),
    });
    expect(res.status).toBe(200);
    const runId = res.headers.get("x-glassloop-run-id") as string;
    const events = parseSse(await res.text());
    const expected = `saw 3 image/png:-:${PNG.length} application/pdf:q3.pdf:${PDF.length} application/pdf:-:https://files.example.test/pub/a.pdf `;
    expect(textOf(events)).toBe(expected);
    // The model got exactly the parts a local run's model gets.
    const result = await client.result(runId);
    const asked = result.messages.find((m) => m.role === "user");
    expect(asked).toMatchObject({
      content: "what files",
      images: [{ type: "image", mediaType: "image/png", data: PNG }],
      files: [
        { type: "file", mediaType: "application/pdf", data: PDF, filename: "q3.pdf" },
        { type: "file", mediaType: "application/pdf", url: "https://files.example.test/pub/a.pdf" },
      ],
    });
    // The next turn loads the session from the workers' store: the files are in its history.
    const next = await scaled.fetch("/api/chat", {
      method: "POST",
      headers: alice,
      body: send("f1", "files now"),
    });
    expect(textOf(parseSse(await next.text()))).toBe(expected);
    // A reload shows them as for a local run (inline bytes stay in the store; a URL shows again).
    const chat = (await (await scaled.fetch("/api/chats/f1", { headers: alice })).json()) as {
      messages: { role: string; parts: { type: string; [key: string]: unknown }[] }[];
    };
    expect(chat.messages[0]?.parts.slice(1)).toEqual([
      { type: "data-glassloop-file", data: { mediaType: "image/png", filename: null } },
      { type: "data-glassloop-file", data: { mediaType: "application/pdf", filename: "q3.pdf" } },
      { type: "file", mediaType: "application/pdf", url: "https://files.example.test/pub/a.pdf" },
    ]);
  }, 30_000);

  it("refuses what a local server refuses, with the same answer, and enqueues nothing", async () => {
    const before = (await client.listRuns({ limit: 1_000 })).length;
    const big = Buffer.alloc(5 * 1024 * 1024 + 1, 1);
    big.set(Buffer.from("\x89PNG\r\n\x1a\n", "latin1"));
    const bad: [string, FileSent[]][] = [
      ["a text file", [inline("text/plain", Buffer.from("hello").toString("base64"), "a.txt")]],
      ["an image over the size cap", [inline("image/png", big.toString("base64"))]],
      ["a PDF that is not one", [inline("application/pdf", PNG, "fake.pdf")]],
      ["too many files", [1, 2, 3, 4].map(() => inline("image/png", PNG))],
      [
        "a URL outside the allow-list",
        [{ type: "file", mediaType: "application/pdf", url: "https://evil.test/a.pdf" }],
      ],
      [
        "a type that differs from the data URL's",
        [{ type: "file", mediaType: "image/png", url: `data:image/gif;base64,${PNG}` }],
      ],
    ];
    for (const [what, files] of bad) {
      const ask = (s: Served) =>
        s.fetch("/api/chat", {
          method: "POST",
          headers: alice,
          body: send(`bad-${what.length}`, "what files", files),
        });
      const [here, there] = await Promise.all([ask(local), ask(scaled)]);
      expect(there.status, what).toBe(422);
      expect([there.status, await there.json()], what).toEqual([here.status, await here.json()]);
    }
    expect(localSeen).toHaveLength(0);
    expect((await client.listRuns({ limit: 1_000 })).length).toBe(before);
    const chats = (await (await scaled.fetch("/api/chats", { headers: alice })).json()) as {
      chats: { id: string; activeRun: unknown }[];
    };
    expect(chats.chats.every((c) => c.activeRun === null)).toBe(true);
  }, 30_000);

  it("makes the last answer again on the workers: the session copied where the turn began, with that turn's input and files", async () => {
    const post = (body: string, token = ALICE) =>
      scaled.fetch("/api/chat", {
        method: "POST",
        headers: { ...alice, authorization: `Bearer ${token}` },
        body,
      });
    const r1 = await post(send("g1", "what files", [inline("image/png", PNG)]));
    const run1 = r1.headers.get("x-glassloop-run-id") as string;
    expect(textOf(parseSse(await r1.text()))).toBe(`saw 1 image/png:-:${PNG.length} `);
    const r2 = await post(send("g1", "files two", [inline("application/pdf", PDF, "q3.pdf")]));
    const run2 = r2.headers.get("x-glassloop-run-id") as string;
    const two = `saw 2 image/png:-:${PNG.length} application/pdf:q3.pdf:${PDF.length} `;
    expect(textOf(parseSse(await r2.text()))).toBe(two);

    const regenerate = (messageId: string, token = ALICE) =>
      post(
        JSON.stringify({
          id: "g1",
          trigger: "regenerate-message",
          messageId,
          messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "forged" }] }],
        }),
        token,
      );
    // Only the last answer, and only the chat's owner.
    expect((await regenerate(`${run1}:assistant`)).status).toBe(409);
    expect((await regenerate(`${run2}:assistant`, BOB)).status).toBe(404);
    const again = await regenerate(`${run2}:assistant`);
    expect(again.status).toBe(200);
    const run3 = again.headers.get("x-glassloop-run-id") as string;
    // Two files, not three: the history as it was when turn 2 began, and turn 2's PDF from the store.
    expect(textOf(parseSse(await again.text()))).toBe(two);
    const asked = (await client.result(run3)).messages.filter((m) => m.role === "user");
    expect(asked.map((m) => m.content)).toEqual(["what files", "files two"]);
    expect(asked[1]?.files).toEqual([
      { type: "file", mediaType: "application/pdf", data: PDF, filename: "q3.pdf" },
    ]);

    // The chat shows the new answer in the old one's place; the next turn continues from the copy.
    const chat = (await (await scaled.fetch("/api/chats/g1", { headers: alice })).json()) as {
      messages: { id: string; role: string }[];
    };
    expect(chat.messages.map((m) => m.id)).toEqual([
      `${run1}:user`,
      `${run1}:assistant`,
      `${run3}:user`,
      `${run3}:assistant`,
    ]);
    const r4 = await post(send("g1", "files after"));
    const run4 = r4.headers.get("x-glassloop-run-id") as string;
    expect(textOf(parseSse(await r4.text()))).toBe(two);
    // The stream ends with the worker's last event; its workflow saves the session beside it.
    expect((await client.result(run4)).status).toBe("ok");
    const store = await client.store();
    const fork = (await store.loadRun(run3)).session?.sessionId;
    expect(fork).toBe(`serve:alice:g1~${run3}`);
    expect((await store.loadRun(run4)).session).toMatchObject({ sessionId: fork, base: 4 });
    expect(await store.readSession(fork as string)).toHaveLength(6);
    // The replaced answer stays whole in the session it was made on.
    expect(await store.readSession("serve:alice:g1")).toHaveLength(4);
  }, 30_000);

  it("makes an answer cancelled on its worker again: the turn was never saved, its files come from the run's request", async () => {
    const post = (path: string, body: string) => scaled.fetch(path, { method: "POST", headers: alice, body });
    const r1 = await post("/api/chat", send("g2", "what files", [inline("application/pdf", PDF, "q3.pdf")]));
    expect(textOf(parseSse(await r1.text()))).toBe(`saw 1 application/pdf:q3.pdf:${PDF.length} `);
    const approvalOf = (text: string) =>
      chunksOf(parseSse(text)).find((c) => c.type === "tool-approval-request") as unknown as {
        approvalId: string;
      };
    // A refund waits for approval on the worker; the client cancels it there.
    const r2 = await post("/api/chat", send("g2", "refund files", [inline("image/png", PNG)]));
    const run2 = r2.headers.get("x-glassloop-run-id") as string;
    expect(approvalOf(await r2.text())).toBeDefined();
    const cancel = await post(`/api/runs/${run2}/cancel`, "{}");
    expect(((await cancel.json()) as { status: string }).status).toBe("aborted");

    const again = await post(
      "/api/chat",
      JSON.stringify({
        id: "g2",
        trigger: "regenerate-message",
        messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "x" }] }],
      }),
    );
    expect(again.status).toBe(200);
    const run3 = again.headers.get("x-glassloop-run-id") as string;
    const { approvalId } = approvalOf(await again.text());
    const decided = await post(
      `/api/runs/${run3}/approvals`,
      JSON.stringify({ decisions: [{ approvalId, approved: true }] }),
    );
    expect(decided.status).toBe(202);
    // The first turn's PDF from the copied history, the cancelled turn's image from its request.
    const result = await client.result(run3);
    expect(result).toMatchObject({
      status: "ok",
      output: `saw 2 application/pdf:q3.pdf:${PDF.length} image/png:-:${PNG.length} `,
    });
    expect(result.messages.filter((m) => m.role === "user").map((m) => m.content)).toEqual([
      "what files",
      "refund files",
    ]);
  }, 30_000);
});
