import { useChat } from "@ai-sdk/react";
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";
import { useState } from "react";
import { createRoot } from "react-dom/client";

/**
 * A test page: the real `useChat` of `@ai-sdk/react`, configured as docs/serve.md tells a Next.js
 * app to, against a real `glassloop serve` handler. `?chat=<id>&agent=<name>` picks the chat; the
 * stored history comes from `GET /api/chats/:id`, and `resume: true` picks up a running answer.
 */
function Chat({ chatId, agent, initial }: { chatId: string; agent: string; initial: UIMessage[] }) {
  const [input, setInput] = useState("");
  const { messages, sendMessage, status, error, stop, addToolApprovalResponse } = useChat({
    id: chatId,
    messages: initial,
    resume: true,
    transport: new DefaultChatTransport({ api: "/api/chat", body: { agent } }),
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  return (
    <div>
      <p data-testid="status">{status}</p>
      {error && <p data-testid="error">{error.message}</p>}
      {messages.map((message) => (
        <div key={message.id} data-testid="message" data-role={message.role} data-id={message.id}>
          {message.parts.map((part, i) => {
            const key = `${message.id}-${i}`;
            if (part.type === "text")
              return (
                <p key={key} data-testid="text">
                  {part.text}
                </p>
              );
            if (part.type.startsWith("tool-") && "toolCallId" in part) {
              return (
                <div key={key} data-testid="tool" data-tool-call-id={part.toolCallId} data-state={part.state}>
                  <code>{part.type.slice(5)}</code> <span>{part.state}</span>
                  {part.state === "output-available" && (
                    <pre data-testid="output">{JSON.stringify(part.output)}</pre>
                  )}
                  {part.state === "approval-requested" && (
                    <button
                      type="button"
                      data-testid="approve"
                      onClick={() => addToolApprovalResponse({ id: part.approval.id, approved: true })}
                    >
                      Approve
                    </button>
                  )}
                </div>
              );
            }
            return null;
          })}
        </div>
      ))}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void sendMessage({ text: input });
          setInput("");
        }}
      >
        <input data-testid="input" value={input} onChange={(e) => setInput(e.target.value)} />
        <button type="submit" data-testid="send">
          Send
        </button>
        <button type="button" data-testid="stop" onClick={() => void stop()}>
          Stop
        </button>
      </form>
    </div>
  );
}

async function main() {
  const params = new URLSearchParams(location.search);
  const chatId = params.get("chat") ?? "default";
  const agent = params.get("agent") ?? "";
  const res = await fetch(`/api/chats/${encodeURIComponent(chatId)}`);
  const initial = res.ok ? ((await res.json()) as { messages: UIMessage[] }).messages : [];
  const root = document.getElementById("root");
  if (root) createRoot(root).render(<Chat chatId={chatId} agent={agent} initial={initial} />);
}

void main();
