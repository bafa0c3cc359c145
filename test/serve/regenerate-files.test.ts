import type { UIMessage } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../src/index.js";
import { FunctionModel } from "../../src/testing.js";
import { ALICE, BOB, type Served, serve, TestChat } from "./harness.js";

const auth = { authorization: `Bearer ${ALICE}` };
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n").toString("base64");
const PNG = Buffer.from("\x89PNG\r\n\x1a\n0000").toString("base64");

/** An agent whose model answers "answer N to <input>" and records every transcript it was sent. */
function recording() {
  const seen: Message[][] = [];
  let n = 0;
  const agent = () => ({
    model: new FunctionModel((request) => {
      seen.push([...(request.messages as Message[])]);
      const last = [...request.messages].reverse().find((m) => m.role === "user");
      return { text: `answer ${++n} to ${typeof last?.content === "string" ? last.content : "?"}` };
    }),
  });
  return { agent, seen };
}

/** A transcript as role: text lines (what the model was shown). */
function lines(messages: readonly Message[]): string[] {
  return messages.map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : ""}`);
}

function texts(messages: readonly UIMessage[]): string[] {
  return messages.map(
    (m) =>
      `${m.role}: ${m.parts
        .filter((p) => p.type === "text")
        .map((p) => (p as { text: string }).text)
        .join("")}`,
  );
}

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe("regenerate-message: the chat's last answer made again", () => {
  it("re-runs the last turn on the history as it was; the old answer leaves the chat and the session", async () => {
    const { agent, seen } = recording();
    served = serve({ agents: { rec: agent } });
    const chat = new TestChat(served, { id: "regen", token: ALICE });
    await chat.sendMessage({ text: "first" });
    await chat.sendMessage({ text: "second" });
    expect(chat.lastText).toBe("answer 2 to second");

    await chat.regenerate();
    expect(chat.errors).toEqual([]);
    expect(texts(chat.messages)).toEqual([
      "user: first",
      "assistant: answer 1 to first",
      "user: second",
      "assistant: answer 3 to second",
    ]);
    // The model saw the turn as it was asked the first time: not the answer it replaces.
    expect(lines(seen[2] as Message[])).toEqual([
      "user: first",
      "assistant: answer 1 to first",
      "user: second",
    ]);

    // A reload shows the same chat; the next turn continues from the regenerated answer.
    const stored = (await (await served.fetch("/api/chats/regen", { headers: auth })).json()) as {
      messages: UIMessage[];
    };
    expect(texts(stored.messages)).toEqual(texts(chat.messages));
    await chat.sendMessage({ text: "third" });
    expect(lines(seen[3] as Message[])).toEqual([
      "user: first",
      "assistant: answer 1 to first",
      "user: second",
      "assistant: answer 3 to second",
      "user: third",
    ]);
  });

  it("regenerating the first answer of a chat runs it on an empty history", async () => {
    const { agent, seen } = recording();
    served = serve({ agents: { rec: agent } });
    const chat = new TestChat(served, { id: "regen-first", token: ALICE });
    await chat.sendMessage({ text: "only" });
    await chat.regenerate();
    expect(chat.errors).toEqual([]);
    expect(texts(chat.messages)).toEqual(["user: only", "assistant: answer 2 to only"]);
    expect(lines(seen[1] as Message[])).toEqual(["user: only"]);
  });

  it("refuses an earlier answer (409) and another caller's chat (404)", async () => {
    const { agent } = recording();
    served = serve({ agents: { rec: agent } });
    const chat = new TestChat(served, { id: "regen-refused", token: ALICE });
    await chat.sendMessage({ text: "one" });
    const firstAnswer = (chat.messages.at(-1) as UIMessage).id;
    await chat.sendMessage({ text: "two" });
    const post = (token: string, body: Record<string, unknown>) =>
      (served as Served).fetch("/api/chat", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          id: "regen-refused",
          messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "one" }] }],
          trigger: "regenerate-message",
          ...body,
        }),
      });
    const earlier = await post(ALICE, { messageId: firstAnswer });
    expect(earlier.status).toBe(409);
    expect(((await earlier.json()) as { detail: string }).detail).toContain("only the chat's last answer");
    expect((await post(BOB, {})).status).toBe(404);
    // Alice's chat is untouched by both.
    const stored = (await (await served.fetch("/api/chats/regen-refused", { headers: auth })).json()) as {
      messages: UIMessage[];
    };
    expect(texts(stored.messages)).toEqual(texts(chat.messages));
  });
});

describe("file parts in a user message", () => {
  it("inline PDFs and images reach the model as the run's files and images, and come back on regenerate", async () => {
    const { agent, seen } = recording();
    served = serve({ agents: { rec: agent } });
    const chat = new TestChat(served, { id: "files", token: ALICE });
    await chat.sendMessage({
      text: "read these",
      files: [
        {
          type: "file",
          mediaType: "application/pdf",
          filename: "q3.pdf",
          url: `data:application/pdf;base64,${PDF}`,
        },
        { type: "file", mediaType: "image/png", url: `data:image/png;base64,${PNG}` },
      ],
    });
    expect(chat.errors).toEqual([]);
    const asked = (seen[0] as Message[]).at(-1) as Message & { files?: unknown[]; images?: unknown[] };
    expect(asked.files).toEqual([
      { type: "file", mediaType: "application/pdf", data: PDF, filename: "q3.pdf" },
    ]);
    expect(asked.images).toEqual([{ type: "image", mediaType: "image/png", data: PNG }]);

    await chat.regenerate();
    const again = (seen[1] as Message[]).at(-1) as Message & { files?: unknown[]; images?: unknown[] };
    expect(again.files).toEqual(asked.files);
    expect(again.images).toEqual(asked.images);
  });

  it("a file by URL is refused unless the server allows that URL (the URL allow-list's rule)", async () => {
    const { agent, seen } = recording();
    served = serve({
      agents: { rec: agent },
      attachments: { allowUrls: ["https://files.example.test/pub"] },
    });
    const send = async (id: string, url: string) => {
      const chat = new TestChat(served as Served, { id, token: ALICE });
      await chat.sendMessage({
        text: "see file",
        files: [{ type: "file", mediaType: "application/pdf", url }],
      });
      return chat;
    };
    const ok = await send("url-ok", "https://files.example.test/pub/a.pdf");
    expect(ok.errors).toEqual([]);
    expect(((seen[0] as Message[]).at(-1) as { files?: unknown[] }).files).toEqual([
      { type: "file", mediaType: "application/pdf", url: "https://files.example.test/pub/a.pdf" },
    ]);
    for (const url of [
      "https://evil.test/a.pdf",
      "https://files.example.test/private/a.pdf",
      "https://files.example.test@evil.test/pub/a.pdf",
      "http://files.example.test/pub/a.pdf",
    ]) {
      const refused = await send(`url-no-${seen.length}`, url);
      expect(refused.errors[0]?.message, url).toContain("is not allowed here");
    }
    expect(seen).toHaveLength(1);

    // Without an allow-list, no URL at all; and a data URL whose bytes are not what it says, refused.
    await served.close();
    served = serve({ agents: { rec: agent } });
    const none = await send("url-none", "https://files.example.test/pub/a.pdf");
    expect(none.errors[0]?.message).toContain("files by URL are not accepted here");
    const fake = new TestChat(served, { id: "fake-pdf", token: ALICE });
    await fake.sendMessage({
      text: "x",
      files: [{ type: "file", mediaType: "application/pdf", url: `data:application/pdf;base64,${PNG}` }],
    });
    expect(fake.errors[0]?.message).toContain("not a PDF");
    expect(seen).toHaveLength(1);
  });
});
