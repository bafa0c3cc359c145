import { useEffect, useMemo, useState } from "preact/hooks";
import { type AgentInfo, type ChatSummary, call, paths } from "./api.js";
import { logIn, readHash, type SignIn, signIn, writeHash } from "./auth.js";
import { ChatSession, newId } from "./chat-session.js";
import { ChatView } from "./chat-view.js";

interface AgentList {
  agents: AgentInfo[];
  default: string;
}

/** The chat page: sign in, pick an agent and a chat, talk. The chat id lives in the fragment, so a reload reopens it. */
export function App() {
  const [me, setMe] = useState<SignIn | { state: "checking" } | { state: "error"; message: string }>({
    state: "checking",
  });
  useEffect(() => {
    signIn().then(setMe, (e: unknown) =>
      setMe({ state: "error", message: String((e as Error).message ?? e) }),
    );
  }, []);
  return (
    <>
      {me.state === "in" ? (
        <Chats />
      ) : (
        <header class="top">
          <span class="brand">
            glassloop <span>chat</span>
          </span>
        </header>
      )}
      {me.state === "checking" && <p class="center muted">Signing in…</p>}
      {me.state === "error" && (
        <p class="center error-box" role="alert">
          {me.message}
        </p>
      )}
      {me.state === "needs-token" && <TokenForm message={me.message} onSignedIn={setMe} />}
    </>
  );
}

function TokenForm({
  message,
  onSignedIn,
}: {
  message: string | undefined;
  onSignedIn: (me: SignIn) => void;
}) {
  const [token, setToken] = useState("");
  return (
    <form
      class="center token-form"
      data-testid="token-form"
      onSubmit={(e) => {
        e.preventDefault();
        void logIn(token.trim()).then(onSignedIn);
      }}
    >
      <p>
        Open the link <code>glassloop serve</code> printed, or paste its token here.
      </p>
      {message && (
        <p class="error-box" role="alert">
          {message}
        </p>
      )}
      <label for="token">Token</label>
      <input
        id="token"
        type="password"
        autocomplete="off"
        value={token}
        onInput={(e) => setToken(e.currentTarget.value)}
      />
      <button type="submit" disabled={!token.trim()}>
        Sign in
      </button>
    </form>
  );
}

function Chats() {
  const [agents, setAgents] = useState<AgentList | undefined>();
  const [chats, setChats] = useState<ChatSummary[]>([]);
  const [chatId, setChatId] = useState(() => readHash().get("chat") ?? newId());
  const [picked, setPicked] = useState<string | undefined>(() => readHash().get("agent") ?? undefined);
  const [failure, setFailure] = useState<string | undefined>();
  useEffect(() => {
    call<AgentList>(paths.agents).then(setAgents, (e: unknown) =>
      setFailure(String((e as Error).message ?? e)),
    );
  }, []);
  // The list refreshes whenever the chat changes (a new chat shows up after its first message).
  useEffect(() => {
    call<{ chats: ChatSummary[] }>(paths.chats).then(
      (r) => setChats(r.chats),
      () => {},
    );
  }, [chatId]);
  useEffect(() => {
    const hash = readHash();
    hash.set("chat", chatId);
    writeHash(hash);
  }, [chatId]);
  const session = useMemo(() => new ChatSession(chatId, picked), [chatId]);
  useEffect(() => {
    void session.load();
    return () => session.close();
  }, [session]);
  const [bound, setBound] = useState<string | undefined>();
  useEffect(
    () =>
      session.subscribe((s) => {
        setBound(s.messages.length > 0 ? s.agent : undefined);
        if (s.status === "ready" && s.messages.length > 0 && !chats.some((c) => c.id === s.chatId))
          call<{ chats: ChatSummary[] }>(paths.chats).then(
            (r) => setChats(r.chats),
            () => {},
          );
      }),
    [session, chats],
  );
  const agent = bound ?? picked ?? agents?.default;
  useEffect(() => {
    if (agent) session.pickAgent(agent);
  }, [session, agent]);
  const current = agents?.agents.find((a) => a.name === agent);
  return (
    <>
      <header class="top">
        <span class="brand">
          glassloop <span>chat</span>
        </span>
        <label class="field">
          <span>Agent</span>
          <select
            value={agent}
            disabled={bound !== undefined || !agents}
            title={bound ? "A chat keeps the agent of its first message" : undefined}
            data-testid="agent-select"
            onChange={(e) => setPicked(e.currentTarget.value)}
          >
            {agents?.agents.map((a) => (
              <option key={a.name} value={a.name}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>Chat</span>
          <select value={chatId} data-testid="chat-select" onChange={(e) => setChatId(e.currentTarget.value)}>
            {!chats.some((c) => c.id === chatId) && <option value={chatId}>new chat</option>}
            {chats.map((c) => (
              <option key={c.id} value={c.id}>
                {c.title || c.id}
                {c.activeRun ? " (running)" : ""}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="new-chat" data-testid="new-chat" onClick={() => setChatId(newId())}>
          New chat
        </button>
        <a class="nav" href="trace/" target="_blank" rel="noopener noreferrer">
          traces
        </a>
      </header>
      {current?.description && <p class="agent-about muted">{current.description}</p>}
      {failure && (
        <p class="error-box center" role="alert">
          {failure}
        </p>
      )}
      <main>
        <ChatView key={chatId} session={session} />
      </main>
    </>
  );
}
