import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, type AgentEvent, ConfigError } from "glassloop";
import { LongTermMemory, memoryTools, OpenAIEmbeddings } from "glassloop/memory";
import { SqliteStore } from "glassloop/store";
import { ScriptedModel } from "glassloop/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fenceFor } from "../../src/core/prompt-fence.js";

// A toy embedding model: synonyms share a dimension, so vector search finds what words alone miss.
const CONCEPTS: Record<string, number> = {
  car: 0,
  automobile: 0,
  vehicle: 0,
  sedan: 0,
  dog: 1,
  puppy: 1,
  hound: 1,
  allergy: 2,
  allergic: 2,
  peanuts: 3,
  nuts: 3,
  meeting: 4,
  standup: 4,
};
const DIMS = 32;
function embed(text: string): number[] {
  const v = new Array(DIMS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    const concept = CONCEPTS[word];
    if (concept !== undefined) v[concept] += 1;
    else v[8 + ([...word].reduce((h, c) => h * 31 + c.charCodeAt(0), 7) % (DIMS - 8))] += 0.2;
  }
  return v;
}

let server: Server;
let baseURL: string;
const received: { model: string; input: string[]; auth: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/embeddings") {
        res.writeHead(404).end();
        return;
      }
      const parsed = JSON.parse(body) as { model: string; input: string[] };
      received.push({ ...parsed, auth: req.headers.authorization });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          object: "list",
          model: parsed.model,
          data: parsed.input.map((t, index) => ({ object: "embedding", index, embedding: embed(t) })),
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const stores: SqliteStore[] = [];
function store(): SqliteStore {
  const s = new SqliteStore({ path: ":memory:" });
  stores.push(s);
  return s;
}
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

const notes = [
  "Alice drives a red sedan to work",
  "Alice is allergic to peanuts",
  "The weekly standup is on Monday at 9",
  "Alice adopted a puppy named Biscuit",
  "The quarterly report is due in April",
];

describe("long-term recall", () => {
  it("finds the right note with full-text search, offline, scoped per user", async () => {
    const s = store();
    const alice = new LongTermMemory({ store: s, scope: { user: "alice" } });
    for (const text of notes) await alice.remember(text, { source: "test" });
    await alice.forScope({ user: "bob" }).remember("Bob is allergic to cats");
    const hits = await alice.search("what is she allergic to", 3);
    expect(hits.map((h) => h.text)).toContain("Alice is allergic to peanuts");
    expect(hits.every((h) => h.scope === "user:alice")).toBe(true);
    expect(hits[0]?.metadata).toEqual({ source: "test" });
    expect(await alice.forScope("user:carol").search("allergic", 3)).toEqual([]);
    expect(() => new LongTermMemory({ store: s, scope: { user: "" } })).toThrow(ConfigError);
    expect(() => new LongTermMemory({ store: s, scope: "u:a", mode: "vector" })).toThrow(/embeddings/);
  });

  it("ranks by cosine over embeddings from a local /embeddings server, alone or blended", async () => {
    const embeddings = new OpenAIEmbeddings({ baseURL, apiKey: "sk-local", model: "toy-embed" });
    const s = store();
    const vector = new LongTermMemory({ store: s, scope: "user:alice", embeddings, mode: "vector" });
    for (const text of notes) await vector.remember(text);
    expect(received.at(-1)).toEqual({ model: "toy-embed", input: [notes.at(-1)], auth: "Bearer sk-local" });

    // No word in common with the note, but the same concept.
    const byVector = await vector.search("which automobile", 1);
    expect(byVector[0]?.text).toBe("Alice drives a red sedan to work");
    const text = new LongTermMemory({ store: s, scope: "user:alice" });
    expect((await text.search("which automobile", 3)).map((h) => h.text)).not.toContain(notes[0]);

    const hybrid = new LongTermMemory({ store: s, scope: "user:alice", embeddings });
    expect(hybrid.mode).toBe("hybrid");
    const blended = await hybrid.search("hound", 2);
    expect(blended[0]?.text).toBe("Alice adopted a puppy named Biscuit");
    const both = await hybrid.search("peanuts allergy", 1);
    expect(both[0]?.text).toBe("Alice is allergic to peanuts");
  });

  it("embeds in batches and rejects a malformed answer with a clear error", async () => {
    const embeddings = new OpenAIEmbeddings({ baseURL, model: "toy-embed", batchSize: 2, apiKey: "k" });
    const vectors = await embeddings.embed(["a car", "a dog", "a nut"]);
    expect(vectors.map((v) => v.length)).toEqual([DIMS, DIMS, DIMS]);
    expect(received.slice(-2).map((r) => r.input.length)).toEqual([2, 1]);
    const broken = new OpenAIEmbeddings({
      baseURL: `${baseURL}/nowhere`,
      apiKey: "k",
      http: { retry: { maxRetries: 0 } },
    });
    await expect(broken.embed(["x"])).rejects.toThrow(/404/);
  });

  it("gives agents memory_save and memory_search tools", async () => {
    const memory = new LongTermMemory({ store: store(), scope: "user:alice" });
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: "memory_save", args: { text: "Alice prefers tea over coffee", tags: ["drinks"] } },
        ],
      },
      { toolCalls: [{ name: "memory_search", args: { query: "what does alice drink", k: 3 } }] },
      { text: "Tea." },
    ]);
    const agent = new Agent({ model, tools: [...memoryTools(memory)] });
    const result = await agent.run("Remember that I prefer tea, then check.");
    const results = result.messages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results[0]).toMatch(/^Saved as note \d+\.$/);
    expect(results[1]).toMatch(/- \[note \d+\] Alice prefers tea over coffee/);
    expect((await memory.search("tea", 1))[0]?.metadata).toEqual({ tags: ["drinks"] });
  });

  it("recalls automatically: the top notes go into the instructions, visible as a recall event and in the request", async () => {
    const memory = new LongTermMemory({ store: store(), scope: "user:alice" });
    for (const text of notes) await memory.remember(text);
    const model = new ScriptedModel([{ text: "Peanuts." }]);
    const agent = new Agent({ instructions: "Help Alice.", model, recall: { memory, k: 2 } });
    const events: AgentEvent[] = [];
    await agent.run("Which food am I allergic to?", { onEvent: (e) => events.push(e) });
    const recall = events.find((e) => e.type === "recall");
    expect(recall).toMatchObject({ query: "Which food am I allergic to?" });
    expect(recall?.type === "recall" && recall.notes.map((n) => n.text)).toContain(
      "Alice is allergic to peanuts",
    );
    const instructions = model.requests[0]?.instructions ?? "";
    const recalled = recall?.type === "recall" ? recall.notes.map((n) => n.text) : [];
    const fence = fenceFor("note", recalled);
    expect(instructions).toBe(
      [
        `Help Alice.\n\nNotes from long-term memory that may be relevant (saved earlier; they may be outdated). ${fence.rule}`,
        ...recalled.map((text) => `<${fence.name}>\n${text}\n</${fence.name}>`),
      ].join("\n"),
    );
    expect(instructions).toContain(`<${fence.name}>\nAlice is allergic to peanuts\n</${fence.name}>`);
    const request = events.find((e) => e.type === "model_request");
    expect(JSON.stringify(request)).toContain("Alice is allergic to peanuts");
    expect(events.findIndex((e) => e.type === "recall")).toBeLessThan(events.indexOf(request as AgentEvent));
  });

  it("a failing recall search is shown and the run goes on without notes", async () => {
    const embeddings = new OpenAIEmbeddings({
      baseURL: `${baseURL}/down`,
      apiKey: "k",
      http: { retry: { maxRetries: 0 } },
    });
    const memory = new LongTermMemory({ store: store(), scope: "u:x", embeddings });
    const model = new ScriptedModel([{ text: "ok" }]);
    const agent = new Agent({ instructions: "Hi.", model, recall: { memory } });
    const events: AgentEvent[] = [];
    await expect(agent.run("q", { onEvent: (e) => events.push(e) })).resolves.toMatchObject({ output: "ok" });
    expect(events.find((e) => e.type === "recall")).toMatchObject({
      notes: [],
      error: expect.stringMatching(/404/),
    });
    expect(model.requests[0]?.instructions).toBe("Hi.");
  });
});
