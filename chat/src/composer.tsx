import { useEffect, useRef, useState } from "preact/hooks";
import type { ChatStatus } from "./chat-session.js";

/**
 * The message box: Enter sends, Shift+Enter breaks the line, Escape stops a running answer. A message
 * sent while the chat's history is still loading waits in the box and goes out once it has loaded
 * (the page takes typing from its first frame; an Enter then must not vanish).
 */
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
  // The text of an Enter pressed while the history loads; sent as it was then, once loading ends.
  const [queued, setQueued] = useState<string | undefined>();
  const send = (message = text) => {
    if (!message.trim() || running) return;
    if (status === "loading") return setQueued(message);
    setQueued(undefined);
    onSend(message);
    // What was typed after a queued Enter stays in the box.
    setText((now) => (now === message ? "" : now));
  };
  useEffect(() => {
    if (queued !== undefined && status !== "loading") send(queued);
  }, [queued, status]);
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
        data-queued={queued === undefined ? undefined : "true"}
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
        <button type="submit" class="send" data-testid="send" disabled={!text.trim()}>
          Send
        </button>
      )}
    </form>
  );
}
