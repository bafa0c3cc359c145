/**
 * The session a turn on scale-out workers runs on, in the workers' Postgres store: the chat's
 * current one, or, to make the last answer again, a copy of it cut where that turn began, made
 * the way a local turn's is (`turnSession`), before the run is enqueued.
 */
import type { ScaleClient } from "../scale/client.js";
import { UnknownRunError } from "../store/errors.js";
import { refuse } from "./errors.js";
import type { ChatRecord, ServeLog } from "./serve-log.js";
import { sessionKey, type Turn, turnSession } from "./turn-session.js";

/** DBOS statuses of a workflow that may still write: the run's record and session are not final yet. */
const UNSETTLED = new Set(["ENQUEUED", "PENDING", "DELAYED"]);

/** How long a regenerate waits for the replaced run's workflow to finish writing (it has ended: its chat was free). */
const SETTLE_MS = 5_000;

/**
 * The session (and, to make an answer again, the input and files) of a turn on the workers. A new
 * turn continues the chat's latest session (a made-again answer's copy, once there is one). To make
 * the last answer again, its run's record in the workers' store says where the turn began (the
 * session messages it loaded); the session is copied up to there, and the turn's input and files
 * are read back from the stored message, as for a local run. An answer that never reached the
 * session (its run cancelled before it ended) is a 409.
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
  const store = await o.client.store();
  const stored = await store.loadRun(old.runId).catch((error: unknown) => {
    if (error instanceof UnknownRunError) return undefined;
    throw error;
  });
  const link = stored?.session;
  if (!link || link.sessionId !== old.session)
    throw refuse.conflict(
      "this answer was not saved in the chat's session (its run ended before it was); send the message again",
    );
  return turnSession({ log: o.log, store }, principal, chat, runId, {
    ...turn,
    replaces: { ...old, sessionStart: link.base },
  });
}
