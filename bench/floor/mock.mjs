// The mock OpenAI Chat Completions server of the floor bench. Stateless: the turn comes from the
// request (no tool message yet: call add; one: call multiply with its result; two: answer with the
// last result), so any number of tasks may run at once. `/big/<bytes>` streams one text answer of
// about that many bytes (the streaming-memory bench).
import { createServer } from "node:http";

let seq = 0;

const firstNumber = (message) => {
  const text =
    typeof message?.content === "string" ? message.content : JSON.stringify(message?.content ?? "");
  const match = text.match(/-?\d+(\.\d+)?/);
  return match ? Number(match[0]) : Number.NaN;
};

function script(messages) {
  const results = messages.filter((m) => m.role === "tool");
  if (results.length === 0) return { toolCall: { name: "add", args: { a: 200, b: 10 } } };
  if (results.length === 1)
    return { toolCall: { name: "multiply", args: { a: firstNumber(results[0]), b: 2 } } };
  return { text: String(firstNumber(results.at(-1))) };
}

function split(text, parts) {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function usage(bodyBytes, completionTokens) {
  const prompt = Math.ceil(bodyBytes / 4);
  return {
    prompt_tokens: prompt,
    completion_tokens: completionTokens,
    total_tokens: prompt + completionTokens,
  };
}

function respond(res, request, answer, bodyBytes) {
  const id = `chatcmpl-mock${++seq}`;
  const base = {
    id,
    created: 1764633600,
    model: request.model ?? "gpt-4o-mini",
    system_fingerprint: "fp_mock",
  };
  const toolCall = answer.toolCall && {
    id: `call_${seq.toString(36).padStart(8, "0")}`,
    type: "function",
    function: { name: answer.toolCall.name, arguments: JSON.stringify(answer.toolCall.args) },
  };
  const finish = toolCall ? "tool_calls" : "stop";
  const used = usage(bodyBytes, toolCall ? 18 : 2);
  if (!request.stream) {
    const message = toolCall
      ? { role: "assistant", content: null, tool_calls: [toolCall], refusal: null }
      : { role: "assistant", content: answer.text, refusal: null };
    const body = JSON.stringify({
      ...base,
      object: "chat.completion",
      choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
      usage: used,
    });
    res.writeHead(200, {
      "content-type": "application/json",
      "x-request-id": id,
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
    return;
  }
  const chunk = (delta, finishReason = null) => ({
    ...base,
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  });
  const events = [];
  if (toolCall) {
    events.push(
      chunk({
        role: "assistant",
        content: null,
        tool_calls: [
          {
            index: 0,
            id: toolCall.id,
            type: "function",
            function: { name: toolCall.function.name, arguments: "" },
          },
        ],
      }),
    );
    for (const piece of split(toolCall.function.arguments, 4))
      events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  } else {
    events.push(chunk({ role: "assistant", content: "" }));
    for (const piece of split(answer.text, 2)) events.push(chunk({ content: piece }));
  }
  events.push(chunk({}, finish));
  events.push({ ...base, object: "chat.completion.chunk", choices: [], usage: used });
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "x-request-id": id });
  for (const e of events) res.write(`data: ${JSON.stringify(e)}\n\n`);
  res.end("data: [DONE]\n\n");
}

/**
 * Streams a text answer of `bytes` characters (rounded up to whole deltas) in 100-character deltas, written in 64 KiB slices
 * that wait for the socket to drain (a real server's pace at loopback speed, without buffering
 * the whole answer).
 */
function streamBig(res, bytes) {
  const piece = "x".repeat(100);
  const event = `data: ${JSON.stringify({ id: "big", object: "chat.completion.chunk", created: 1764633600, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] })}\n\n`;
  const perSlice = Math.max(1, Math.floor((64 * 1024) / event.length));
  const slice = event.repeat(perSlice);
  const tail = `data: ${JSON.stringify({ id: "big", object: "chat.completion.chunk", created: 1764633600, model: "gpt-4o-mini", choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: usage(100, Math.ceil(bytes / 4)) })}\n\ndata: [DONE]\n\n`;
  let left = Math.ceil(bytes / piece.length);
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
  const pump = () => {
    while (left > 0) {
      const n = Math.min(perSlice, left);
      left -= n;
      if (!res.write(n === perSlice ? slice : event.repeat(n))) {
        res.once("drain", pump);
        return;
      }
    }
    res.end(tail);
  };
  pump();
}

/** Starts the mock on a free port of 127.0.0.1; resolves its base URL (ending in `/v1`) and a stop. */
export function startMock() {
  const server = createServer((req, res) => {
    const parts = [];
    req.on("data", (p) => parts.push(p));
    req.on("end", () => {
      const raw = Buffer.concat(parts);
      const big = req.url?.match(/^\/big\/(\d+)\//);
      if (big) {
        streamBig(res, Number(big[1]));
        return;
      }
      let body;
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        body = undefined;
      }
      if (!Array.isArray(body?.messages)) {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(
          JSON.stringify({ error: { message: "mock: messages[] required", type: "invalid_request_error" } }),
        );
        return;
      }
      respond(res, body, script(body.messages), raw.length);
    });
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        stop: () => new Promise((done) => server.close(() => done())),
        server,
      });
    });
  });
}
