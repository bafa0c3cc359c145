/**
 * Making an answer on scale-out workers again when its run was cancelled: the cancelled run's
 * worker may still be writing its record and session (one transaction) while the server reads
 * them. Whatever moment that write lands at, the copy must be cut where the turn began.
 */
import { describe, expect, it } from "vitest";
import type { ImagePart, Message } from "../../src/index.js";
import type { ScaleClient } from "../../src/scale/index.js";
import { scaleTurnSession } from "../../src/serve/scale-turn.js";
import type { ChatRecord, RunRecord, ServeLog } from "../../src/serve/serve-log.js";
import { UnknownRunError } from "../../src/store/errors.js";

const SESSION = "serve:alice:g2";
const before: Message[] = [
  { role: "user", content: "what files" },
  { role: "assistant", content: "saw 1" },
];
const image: ImagePart = { type: "image", mediaType: "image/png", data: "AAAA" };
// What the cancelled run's worker saves: its turn, with the file it was sent.
const turn: Message[] = [
  { role: "user", content: "refund files", images: [image] },
  { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "refund", arguments: "{}" }] },
];

/**
 * The workers' side as the server sees it: the run's record and its session, written together
 * by the worker after the store's `writeAfter`-th read (0: before any read).
 */
function workers(writeAfter: number) {
  let session = [...before];
  let record: { session: { sessionId: string; offset: number; base: number; version: number } } | undefined;
  let reads = 0;
  const forks: { from: string; to: string; messages: number }[] = [];
  const write = () => {
    session = [...before, ...turn];
    record = { session: { sessionId: SESSION, offset: 0, base: before.length, version: 1 } };
  };
  const read = () => {
    if (++reads === writeAfter) write();
  };
  if (writeAfter === 0) write();
  const store = {
    async readSession(id: string) {
      expect(id).toBe(SESSION);
      const now = [...session];
      read();
      return now;
    },
    async loadRun(runId: string) {
      const now = record;
      read();
      if (!now) throw new UnknownRunError("postgres://workers", runId);
      return now;
    },
    async forkSession(from: string, to: string, options: { messages: number }) {
      forks.push({ from, to, messages: options.messages });
    },
  };
  const client = {
    status: async () => "CANCELLED",
    store: async () => store,
    request: async () => ({ agent: "refunds", input: "refund files", images: [image] }),
  } as unknown as ScaleClient;
  return { client, forks };
}

describe("regenerating a cancelled answer on the workers", () => {
  const chat: ChatRecord = {
    principal: "alice",
    chatId: "g2",
    agent: "refunds",
    title: "",
    createdAt: 0,
    updatedAt: 0,
  };
  const cancelled = { runId: "run2", session: SESSION, status: "aborted" } as RunRecord;

  for (const writeAfter of [0, 1, 2, 3])
    it(`cuts the copy where the turn began, the worker's write landing after read ${writeAfter}`, async () => {
      const { client, forks } = workers(writeAfter);
      const log = {} as ServeLog;
      const next = await scaleTurnSession({ log, client }, "alice", chat, "run3", {
        input: "refund files",
        replaces: cancelled,
      });
      // The turn's file comes back from the run's request, once; the copy holds what came before.
      expect(forks).toEqual([{ from: SESSION, to: "serve:alice:g2~run3", messages: before.length }]);
      expect(next).toMatchObject({ input: "refund files", session: "serve:alice:g2~run3" });
      expect(next.images).toHaveLength(1);
    });
});
