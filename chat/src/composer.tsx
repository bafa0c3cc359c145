import { useRef, useState } from "preact/hooks";
import type { ChatStatus } from "./chat-session.js";

/** The message box: Enter sends, Shift+Enter breaks the line, Escape stops a running answer. */
export function Composer({
  status,
  onSend,
  onStop,
}: {
  status: ChatStatus;
  onSend: (text: string) => void;
  onStop: () => void;
}) {
  const [text, setText] = useState("");
  const box = useRef<HTMLTextAreaElement>(null);
  const running = status === "submitted" || status === "streaming" || status === "awaiting-approval";
  const send = () => {
    if (!text.trim() || running || status === "loading") return;
    onSend(text);
    setText("");
  };
  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label class="sr-only" for="message-box">
        Message
      </label>
      <textarea
        id="message-box"
        ref={box}
        rows={2}
        value={text}
        placeholder={
          status === "awaiting-approval" ? "Approve or reject the waiting call first" : "Message the agent"
        }
        data-testid="message-box"
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            send();
          } else if (e.key === "Escape" && running) {
            e.preventDefault();
            onStop();
          }
        }}
      />
      {running ? (
        <button type="button" class="stop" data-testid="stop" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button type="submit" class="send" data-testid="send" disabled={!text.trim() || status === "loading"}>
          Send
        </button>
      )}
    </form>
  );
}
