import type { FilePart, ImagePart } from "../core/vocabulary/messages.js";
import type { Store } from "../store/store.js";
import { refuse } from "./errors.js";
import type { ChatRecord, RunRecord, ServeLog } from "./serve-log.js";

/** The store session of a principal's chat: principals never share one, whatever chat ids they pick. */
export function sessionKey(principal: string, chatId: string): string {
  return `serve:${encodeURIComponent(principal)}:${chatId}`;
}

/** What a new turn asks: the user's text and files, or (with `replaces`) the chat's last turn again. */
export interface Turn {
  input: string;
  /** The caller's own id for the input message, kept with the run (A2A's messageId). */
  messageId?: string;
  images?: readonly ImagePart[];
  files?: readonly FilePart[];
  replaces?: RunRecord;
}

/**
 * The session a turn runs on and how many messages it holds before the turn: the chat's current
 * session, or, to make the last turn again, a copy of it cut where that turn began (a new id, so
 * the old turn stays whole in the store while the new one runs), with that turn's input and files.
 */
export async function turnSession(
  o: { log: ServeLog; store: Store },
  principal: string,
  chat: ChatRecord,
  runId: string,
  turn: Turn,
): Promise<Turn & { session: string; sessionStart: number }> {
  const runs = await o.log.listChatRuns(principal, chat.chatId);
  const current = runs.at(-1)?.session ?? sessionKey(principal, chat.chatId);
  const past = async (session: string) => o.store.readSession(session).catch(() => []);
  const old = turn.replaces;
  if (!old) return { ...turn, session: current, sessionStart: (await past(current)).length };
  if (old.session === undefined || old.sessionStart === undefined)
    throw refuse.conflict(
      "this answer was stored before answers could be made again; send the message again",
    );
  const session = `${sessionKey(principal, chat.chatId)}~${runId}`;
  const asked = (await past(old.session))[old.sessionStart];
  if (old.sessionStart > 0) await o.store.forkSession(old.session, session, { messages: old.sessionStart });
  return {
    input: old.input,
    ...(asked?.role === "user" && asked.images && { images: asked.images }),
    ...(asked?.role === "user" && asked.files && { files: asked.files }),
    replaces: old,
    session,
    sessionStart: old.sessionStart,
  };
}
