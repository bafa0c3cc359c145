import { useEffect, useState } from "preact/hooks";
import type { ChatSession, ChatState } from "./chat-session.js";

/** The state of a chat session, re-rendered on each change. */
export function useChatSession(session: ChatSession): ChatState {
  const [state, setState] = useState(session.current);
  useEffect(() => {
    setState(session.current);
    return session.subscribe(setState);
  }, [session]);
  return state;
}
