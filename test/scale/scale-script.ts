/**
 * The scripted model of the scale-out tests, as a wire-server handler: each answer is a function
 * of the request alone (which run, how many tool results so far), so any worker, live or
 * replaying, gets the same answer to the same question, and the transcript of a run is known.
 */

import { chatJson } from "../helpers/openai-replies.js";
import type { RecordedRequest, WireReply } from "../helpers/wire-server.js";

/** Model turns with tool calls before the final answer. */
export const TOOL_TURNS = 3;

interface SentMessage {
  role: string;
  content?: string | null;
}

/** The run named in the request's first user message (`run r7: …`). */
export function runOf(body: { messages: SentMessage[] }): string {
  const user = body.messages.find((m) => m.role === "user");
  const match = /run (\S+):/.exec(user?.content ?? "");
  return match?.[1] ?? "unknown";
}

/** The worker a request came from: the first path segment (`/<worker>/v1/chat/completions`). */
export function workerOf(request: RecordedRequest): string {
  return request.path.split("/")[1] ?? "";
}

/** The answer to one request: `TOOL_TURNS` turns of two parallel calls, then a text. */
export function scriptedReply(request: RecordedRequest, delayMs: number): WireReply {
  const body = request.body as { messages: SentMessage[] };
  const run = runOf(body);
  const turn = body.messages.filter((m) => m.role === "assistant").length + 1;
  const usage = { prompt_tokens: 10 * turn, completion_tokens: 5 };
  const user = body.messages.find((m) => m.role === "user")?.content ?? "";
  // A refund needs a person's approval: one turn with the call, then the answer.
  if (user.includes("refund")) {
    if (turn > 1) return { ...chatJson({ text: `refund of ${run} handled`, usage }), delayMs };
    return {
      ...chatJson({
        toolCalls: [{ id: `r_${run}`, name: "refund", arguments: JSON.stringify({ run }) }],
        usage,
      }),
      delayMs,
    };
  }
  // A deploy: `call_1` to staging (no approval needed), then `call_1` again, to production (the
  // model reuses the id), then the answer. The second model call is slow, so a test can act
  // between the two calls.
  if (user.includes("deploy")) {
    if (turn > 2) return { ...chatJson({ text: `deploys of ${run} handled`, usage }), delayMs };
    const env = turn === 1 ? "staging" : "production";
    return {
      ...chatJson({
        toolCalls: [{ id: "call_1", name: "deploy", arguments: JSON.stringify({ run, env }) }],
        usage,
      }),
      delayMs: turn === 2 ? Math.max(delayMs, 2_000) : delayMs,
    };
  }
  // A run that asks the person: one call of `ask`, then an answer quoting what the tool said.
  // "elicit": the same with server-everything's tool that asks (an MCP elicitation).
  if (user.includes("ask") || user.includes("elicit")) {
    if (turn > 1) {
      const said = body.messages.filter((m) => m.role === "tool").at(-1)?.content ?? "";
      return { ...chatJson({ text: `asked ${run}: ${said}`, usage }), delayMs };
    }
    const call = user.includes("ask")
      ? { id: `q_${run}`, name: "ask", arguments: JSON.stringify({ run }) }
      : { id: `e_${run}`, name: "trigger-elicitation-request", arguments: "{}" };
    return {
      ...chatJson({
        toolCalls: [call],
        usage,
      }),
      delayMs,
    };
  }
  // A held run: one call of `hold`, which waits for the test, then the answer.
  if (user.includes("hold")) {
    if (turn > 1) return { ...chatJson({ text: `held ${run}`, usage }), delayMs };
    return {
      ...chatJson({
        toolCalls: [{ id: `h_${run}`, name: "hold", arguments: JSON.stringify({ run }) }],
        usage,
      }),
      delayMs,
    };
  }
  if (turn > TOOL_TURNS) return { ...chatJson({ text: `done ${run}`, usage }), delayMs };
  return {
    ...chatJson({
      toolCalls: [
        { id: `c_${run}_${turn}`, name: "charge", arguments: JSON.stringify({ run, n: turn }) },
        { id: `l_${run}_${turn}`, name: "lookup", arguments: JSON.stringify({ run }) },
      ],
      usage,
    }),
    delayMs,
  };
}
