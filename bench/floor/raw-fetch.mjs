// The same hand-written loop over Node's global fetch (undici): the floor before glassloop left fetch.
import { API_KEY, foldDelta, MODEL, openaiTools, PROMPT, SYSTEM, tools } from "./task.mjs";

async function* sseEvents(body) {
  let buf = "";
  for await (const text of body.pipeThrough(new TextDecoderStream())) {
    buf += text;
    for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
      const event = buf.slice(0, i);
      buf = buf.slice(i + 2);
      for (const line of event.split("\n")) {
        if (line === "data: [DONE]") continue;
        if (line.startsWith("data: ")) yield JSON.parse(line.slice(6));
      }
    }
  }
}

/** Returns the task runner. */
export default async function setup({ baseURL, stream }) {
  const headers = { "content-type": "application/json", authorization: `Bearer ${API_KEY}` };
  const extra = stream ? { stream: true, stream_options: { include_usage: true } } : {};
  return async function runTask() {
    const messages = [
      { role: "system", content: SYSTEM },
      { role: "user", content: PROMPT },
    ];
    for (let step = 0; step < 5; step++) {
      const res = await fetch(`${baseURL}/chat/completions`, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: MODEL, messages, tools: openaiTools, ...extra }),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
      let content;
      let toolCalls;
      if (stream) {
        const acc = { content: "", toolCalls: [] };
        for await (const chunk of sseEvents(res.body)) foldDelta(acc, chunk.choices[0]?.delta);
        ({ content, toolCalls } = acc);
      } else {
        ({ content, tool_calls: toolCalls } = (await res.json()).choices[0].message);
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
