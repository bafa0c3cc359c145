// The floor: a hand-written agent loop over node:http with a keep-alive agent, same task and same
// parsing as the others. What a model call costs with nothing but Node's HTTP client under it.
import http from "node:http";
import { API_KEY, foldDelta, MODEL, openaiTools, PROMPT, SYSTEM, tools } from "./task.mjs";

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function post(url, body) {
  return new Promise((resolve, reject) => {
    const headers = {
      "content-type": "application/json",
      authorization: `Bearer ${API_KEY}`,
      "content-length": Buffer.byteLength(body),
    };
    const req = http.request(url, { method: "POST", agent, headers }, resolve);
    req.on("error", reject);
    req.end(body);
  });
}

async function readAll(res) {
  res.setEncoding("utf8");
  let text = "";
  for await (const chunk of res) text += chunk;
  return text;
}

async function* sseEvents(res) {
  res.setEncoding("utf8");
  let buf = "";
  for await (const text of res) {
    buf += text;
    for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
      const event = buf.slice(0, i);
      buf = buf.slice(i + 2);
      for (const line of event.split("\n")) {
        if (line === "data: [DONE]") continue; // read to the end, as a client reusing the socket must
        if (line.startsWith("data: ")) yield JSON.parse(line.slice(6));
      }
    }
  }
}

/** Returns the task runner. */
export default async function setup({ baseURL, stream }) {
  const url = `${baseURL}/chat/completions`;
  const extra = stream ? { stream: true, stream_options: { include_usage: true } } : {};
  return async function runTask() {
    const messages = [
      { role: "system", content: SYSTEM },
      { role: "user", content: PROMPT },
    ];
    for (let step = 0; step < 5; step++) {
      const res = await post(url, JSON.stringify({ model: MODEL, messages, tools: openaiTools, ...extra }));
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${await readAll(res)}`);
      let content;
      let toolCalls;
      if (stream) {
        const acc = { content: "", toolCalls: [] };
        for await (const chunk of sseEvents(res)) foldDelta(acc, chunk.choices[0]?.delta);
        ({ content, toolCalls } = acc);
      } else {
        ({ content, tool_calls: toolCalls } = JSON.parse(await readAll(res)).choices[0].message);
      }
      if (!toolCalls?.length) return content;
      messages.push({ role: "assistant", content: content || null, tool_calls: toolCalls });
      for (const call of toolCalls) {
        const result = tools[call.function.name].run(JSON.parse(call.function.arguments));
        messages.push({ role: "tool", tool_call_id: call.id, content: String(result) });
      }
    }
    throw new Error("step limit reached");
  };
}
