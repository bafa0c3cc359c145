/**
 * A tool's question (an MCP server's elicitation) over HTTP: the stream shows it with an opaque
 * id, the answer comes back bound to that id and the caller's run, is checked against the form,
 * and resumes the run; forged, foreign, repeated and misfitting answers are refused.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FunctionModel } from "../../src/testing.js";
import { startServeProcess } from "../helpers/serve-process.js";
import { askingClient } from "./fixtures/asking-server.js";
import { ALICE, BOB, parseSse, SERVE_BACKENDS, type Served, served as servedOn } from "./harness.js";

const opened: Served[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

const agents = {
  shop: async () => ({
    model: new FunctionModel((request) => {
      const last = request.messages.at(-1);
      if (last?.role === "tool") return { text: `done: ${last.content}` };
      return { toolCalls: [{ name: "confirm", args: {} }] };
    }),
    toolSources: [await askingClient()],
  }),
};

/** A place on `backend`; each `open()` is a handler on it, as another server process would be. */
async function place(backend: (typeof SERVE_BACKENDS)[number]) {
  const where = await backend.fresh();
  return async (): Promise<Served> => {
    const { store, log, close } = await where.open();
    const s = servedOn({ agents }, store, log, close);
    opened.push(s);
    return s;
  };
}

const auth = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

async function ask(s: Served) {
  const res = await s.fetch("http://localhost/api/chat", {
    method: "POST",
    headers: auth(ALICE),
    body: JSON.stringify({
      id: "c1",
      messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "ship it" }] }],
    }),
  });
  const chunks = parseSse(await res.text())
    .filter((e) => e.data !== "[DONE]")
    .map(
      (e) =>
        JSON.parse(e.data) as {
          type: string;
          id?: string;
          data?: Record<string, unknown>;
          messageMetadata?: { status?: string; runId?: string };
        },
    );
  const question = chunks.find((c) => c.type === "data-glassloop-question");
  const runId = chunks.find((c) => c.type === "start")?.messageMetadata?.runId as string;
  return { runId, question, finish: chunks.at(-1) };
}

const answer = (s: Served, runId: string, body: unknown, token = ALICE) =>
  s.fetch(`http://localhost/api/runs/${runId}/answers`, {
    method: "POST",
    headers: auth(token),
    body: JSON.stringify(body),
  });

for (const backend of SERVE_BACKENDS) {
  describe.skipIf(backend.skip !== undefined)(`a tool's question over HTTP (${backend.name})`, () => {
    it("streams the question with an opaque id, and an answer that fits resumes the run with it", async () => {
      const s = await (await place(backend))();
      const { runId, question, finish } = await ask(s);
      expect(finish).toMatchObject({ type: "finish", messageMetadata: { status: "awaiting_approval" } });
      expect(question?.id).toMatch(/^ques_[A-Za-z0-9_-]{20,}$/);
      expect(question?.data).toMatchObject({
        source: "shop",
        toolName: "confirm",
        message: expect.stringContaining("<b>A-1</b>"),
      });
      const res = await answer(s, runId, {
        answers: [
          { questionId: question?.id, answer: { action: "accept", content: { name: "Ada", color: "blue" } } },
        ],
      });
      expect(res.status).toBe(202);
      const { after } = (await res.json()) as { after: number };
      const rest = await s.fetch(`http://localhost/api/runs/${runId}/stream`, {
        headers: { ...auth(ALICE), "last-event-id": `${runId}/${after}` },
      });
      const text = await rest.text();
      expect(text).toContain(
        'told {\\"action\\":\\"accept\\",\\"content\\":{\\"name\\":\\"Ada\\",\\"color\\":\\"blue\\",\\"copies\\":1}}',
      );
      expect(text).toContain('"status":"ok"');
      // Answered once: again is a conflict.
      const again = await answer(s, runId, {
        answers: [{ questionId: question?.id, answer: { action: "decline" } }],
      });
      expect(again.status).toBe(409);
    });

    it("refuses another caller's run, a forged id, an approval route given a question id, and an answer that does not fit", async () => {
      const s = await (await place(backend))();
      const { runId, question } = await ask(s);
      const fits = {
        answers: [
          { questionId: question?.id, answer: { action: "accept", content: { name: "Ada", color: "red" } } },
        ],
      };
      expect((await answer(s, runId, fits, BOB)).status).toBe(404);
      expect(
        (
          await answer(s, runId, {
            answers: [{ questionId: "ques_forged0000000000000000", answer: { action: "decline" } }],
          })
        ).status,
      ).toBe(404);
      const asApproval = await s.fetch(`http://localhost/api/runs/${runId}/approvals`, {
        method: "POST",
        headers: auth(ALICE),
        body: JSON.stringify({ decisions: [{ approvalId: question?.id, approved: true }] }),
      });
      expect(asApproval.status).toBe(404);
      for (const content of [
        { name: "Ada", color: "green" },
        { name: "A", color: "red" },
        { color: "red" },
        { name: "Ada", color: "red", admin: true },
      ]) {
        const res = await answer(s, runId, {
          answers: [{ questionId: question?.id, answer: { action: "accept", content } }],
        });
        expect(res.status, JSON.stringify(content)).toBe(422);
      }
      // Nothing of that moved the run: the right answer still resumes it.
      expect((await answer(s, runId, fits)).status).toBe(202);
    });

    it("waits across servers: the question asked on one is answered on another, which drives the run on", async () => {
      const open = await place(backend);
      const first = await open();
      const { runId, question } = await ask(first);
      await first.handler.close();
      const second = await open();
      const res = await answer(second, runId, {
        answers: [
          { questionId: question?.id, answer: { action: "accept", content: { name: "Bo", color: "red" } } },
        ],
      });
      expect(res.status).toBe(202);
      const { after } = (await res.json()) as { after: number };
      const rest = await second.fetch(`http://localhost/api/runs/${runId}/stream`, {
        headers: { ...auth(ALICE), "last-event-id": `${runId}/${after}` },
      });
      expect(await rest.text()).toContain('\\"name\\":\\"Bo\\"');
    });
  });
}

describe("a served run waiting on a question, after its server was killed", () => {
  const children: ChildProcess[] = [];
  const dirs: string[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) child.kill("SIGKILL");
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function start(dir: string) {
    const started = await startServeProcess(
      "test/serve/fixtures/question-module.ts",
      join(dir, "store.db"),
      join(dir, "serve.db"),
      { GLASSLOOP_SERVE_TOKENS: `alice=${ALICE}` },
    );
    children.push(started.child);
    return started;
  }

  it("takes the answer in the next process (SIGKILL while the question waits) and the run ends with it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "glassloop-serve-question-"));
    dirs.push(dir);
    const first = await start(dir);
    const res = await fetch(`${first.url}api/chat`, {
      method: "POST",
      headers: auth(ALICE),
      body: JSON.stringify({
        id: "q",
        messages: [{ role: "user", parts: [{ type: "text", text: "ship it" }] }],
      }),
    });
    const chunks = parseSse(await res.text())
      .filter((e) => e.data !== "[DONE]")
      .map((e) => JSON.parse(e.data) as { type: string; id?: string; messageMetadata?: { runId?: string } });
    const questionId = chunks.find((c) => c.type === "data-glassloop-question")?.id;
    const runId = chunks.find((c) => c.type === "start")?.messageMetadata?.runId as string;
    expect(questionId).toBeDefined();
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));

    const second = await start(dir);
    const answered = await fetch(`${second.url}api/runs/${runId}/answers`, {
      method: "POST",
      headers: auth(ALICE),
      body: JSON.stringify({
        answers: [{ questionId, answer: { action: "accept", content: { name: "Cy", color: "blue" } } }],
      }),
    });
    expect(answered.status).toBe(202);
    const { after } = (await answered.json()) as { after: number };
    const rest = await fetch(`${second.url}api/runs/${runId}/stream`, {
      headers: { authorization: `Bearer ${ALICE}`, "last-event-id": `${runId}/${after}` },
    });
    const text = await rest.text();
    expect(text).toContain('\\"name\\":\\"Cy\\"');
    expect(text).toContain('"status":"ok"');
  }, 60_000);
});
