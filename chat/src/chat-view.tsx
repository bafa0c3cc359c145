import { useEffect, useRef } from "preact/hooks";
import type { ChatSession, ChatState } from "./chat-session.js";
import { Composer } from "./composer.js";
import { AssistantMessage, UserMessage } from "./message-view.js";
import { QuestionForm } from "./question-form.js";
import { lastStepOf, type StepRef, splitTurn } from "./turn-steps.js";
import { useChatSession } from "./use-chat-session.js";

const STATUS_TEXT: Record<ChatState["status"], string> = {
  loading: "Loading the chat…",
  ready: "",
  submitted: "Sending…",
  streaming: "The agent is answering…",
  "awaiting-approval": "Waiting for you: an approval or an answer.",
};

/** One chat: its messages, the status line, the message box. */
export function ChatView({ session }: { session: ChatSession }) {
  const state = useChatSession(session);
  const log = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  useEffect(() => {
    const onScroll = () => {
      const el = document.scrollingElement;
      if (el) pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 120;
    };
    addEventListener("scroll", onScroll, { passive: true });
    return () => removeEventListener("scroll", onScroll);
  }, []);
  useEffect(() => {
    // Follows the answer while the reader is at the bottom; leaves them alone once they scroll up.
    if (pinned.current) log.current?.lastElementChild?.scrollIntoView({ block: "end" });
  }, [state.messages]);
  let previous: StepRef | undefined;
  return (
    <>
      <div
        class="log"
        ref={log}
        role="log"
        aria-live="polite"
        aria-busy={state.status === "streaming"}
        data-testid="log"
      >
        {state.messages.length === 0 && state.status === "ready" && (
          <p class="empty muted">No messages yet. Ask the agent something.</p>
        )}
        {state.messages.map((message) => {
          if (message.role !== "assistant") return <UserMessage key={message.id} message={message} />;
          const turn = splitTurn(message);
          const before = previous;
          previous = lastStepOf(turn) ?? previous;
          return (
            <AssistantMessage
              key={message.id}
              message={message}
              turn={turn}
              previousStep={before}
              canDecide={state.status === "awaiting-approval"}
              onDecide={(id, approved) => void session.decide(id, approved)}
            />
          );
        })}
      </div>
      {state.status === "awaiting-approval" &&
        session
          .waitingQuestions()
          .map((question) => (
            <QuestionForm
              key={question.questionId}
              question={question}
              disabled={false}
              onAnswer={(answer) => void session.answer(question.questionId, answer)}
            />
          ))}
      <div class="dock">
        {state.error && (
          <p class="error-box" role="alert" data-testid="chat-error">
            {state.error}
          </p>
        )}
        <p class="status muted" data-testid="status" data-status={state.status} aria-live="polite">
          {STATUS_TEXT[state.status]}
        </p>
        <Composer
          status={state.status}
          onSend={(text) => void session.send(text)}
          onStop={() => void session.stop()}
        />
      </div>
    </>
  );
}
