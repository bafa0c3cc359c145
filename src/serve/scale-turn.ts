/**
 * The session a turn on scale-out workers runs on, in the workers' Postgres store: the chat's
 * current one, or, to make the last answer again, a copy of it cut where that turn began, made
 * the way a local turn's is (`turnSession`: the same cut, the same copy's name), before the run
 * is enqueued.
 */
import type { ScaleClient } from "../scale/client.js";
import { UnknownRunError } from "../store/errors.js";
import { refuse } from "./errors.js";
import type { ChatRecord, ServeLog } from "./serve-log.js";
import { sessionKey, type Turn } from "./turn-session.js";

/** DBOS statuses of a workflow that may still write: the run's record and session are not final yet. */
const UNSETTLED = new Set(["ENQUEUED", "PENDING", "DELAYED"]);

/** How long a regenerate waits for the replaced run's workflow to finish writing (it has ended: its chat was free). */
const SETTLE_MS = 5_000;

/**
 * The session (and, to make an answer again, the input and files) of a turn on the workers. A new
 * turn continues the chat's latest session (a made-again answer's copy, once there is one). To make
 * the last answer again, its run's record in the workers' store says where the turn began (the
 * session messages it loaded); the session is copied up to there, and the turn runs again with
 * the input and files its run was enqueued with, as a local run's are read back from the session.
 */
export async function scaleTurnSession(
  o: { log: ServeLog; client: ScaleClient },
  principal: string,
  chat: ChatRecord,
  runId: string,
  turn: Turn,
): Promise<Turn & { session: string }> {
  const old = turn.replaces;
  if (!old) {
    const runs = await o.log.listChatRuns(principal, chat.chatId);
    return { ...turn, session: runs.at(-1)?.session ?? sessionKey(principal, chat.chatId) };
  }
  // The run's stream ended with its last event; the workflow writes its record and the session
  // beside that, so wait until it has finished.
  const until = Date.now() + SETTLE_MS;
  while (UNSETTLED.has((await o.client.status(old.runId)) ?? "")) {
    if (Date.now() > until)
      throw refuse.conflict("the answer is still being saved by its worker; try again in a moment");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const [store, asked] = await Promise.all([o.client.store(), o.client.request(old.runId)]);
  if (!asked || old.session === undefined)
    throw refuse.conflict("this answer's run is not known to the workers; send the message again");
  // Where the turn began: the session messages its run loaded. A run cancelled before its worker
  // saved it is not in the session at all: the turn began where the session ends (the chat is
  // claimed, and no later turn exists). The session is read before the run's record: a cancelled
  // run's worker may still write both, in one transaction, so a record missing after the read
  // means the length read was the session without the turn (read after the record, the length
  // could already hold the turn that is being made again).
  const sessionLength = (await store.readSession(old.session).catch(() => [])).length;
  const stored = await store.loadRun(old.runId).catch((error: unknown) => {
    if (error instanceof UnknownRunError) return undefined;
    throw error;
  });
  const sessionStart = stored?.session?.base ?? sessionLength;
  const session = `${sessionKey(principal, chat.chatId)}~${runId}`;
  if (sessionStart > 0) await store.forkSession(old.session, session, { messages: sessionStart });
  // The turn's input and files as the run was enqueued with them (checked then; the worker checks
  // them again), whether or not its turn reached the session.
  return {
    input: asked.input,
    ...(asked.images?.length && { images: asked.images }),
    ...(asked.files?.length && { files: asked.files }),
    replaces: old,
    session,
  };
}
