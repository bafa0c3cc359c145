/**
 * A tool's question (an MCP server's elicitation) over HTTP: the stream shows it with an opaque
 * id, the answer comes back bound to that id and the caller's run, is checked against the form,
 * and resumes the run; forged, foreign, repeated and misfitting answers are refused.
 */
import { afterEach, describe, expect, it } from "vitest";
import { FunctionModel } from "../../src/testing.js";
import { askingClient } from "./fixtures/asking-server.js";
import { ALICE, BOB, parseSse, type Served, serve } from "./harness.js";

const opened: Served[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

function served(): Served {
  const s = serve({
    agents: {
      shop: async () => ({
        model: new FunctionModel((request) => {
          const last = request.messages.at(-1);
          if (last?.role === "tool") return { text: `done: ${last.content}` };
          return { toolCalls: [{ name: "confirm", args: {} }] };
        }),
        toolSources: [await askingClient()],
      }),
    },
  });
  opened.push(s);
  return s;
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

describe("a tool's question over HTTP", () => {
  it("streams the question with an opaque id, and an answer that fits resumes the run with it", async () => {
    const s = served();
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
    const s = served();
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
});
