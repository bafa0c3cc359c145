import type { Model, ModelObserver, ModelRequest, ModelResponse } from "glassloop";
import type { ReasoningPart, ToolCall } from "../../src/core/vocabulary/messages.js";
import { requestBody } from "../../src/testing/script.js";

/** A point a scripted answer stops at until the test opens it: pacing without sleeps. */
export class Gate {
  #open!: () => void;
  #reached!: () => void;
  readonly #opened = new Promise<void>((resolve) => {
    this.#open = resolve;
  });
  /** Settles when the model arrives at the gate (the text before it has been streamed). */
  readonly reached = new Promise<void>((resolve) => {
    this.#reached = resolve;
  });

  /** Lets the model go on. */
  open(): void {
    this.#open();
  }

  /** Waits for `open`, or rejects when the run is aborted. */
  async pass(signal: AbortSignal): Promise<void> {
    this.#reached();
    await new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      void this.#opened.then(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      });
    });
  }
}

/** One piece of a scripted answer, streamed in order. */
export type Piece =
  | { text: string }
  | { reasoning: string }
  | { call: string; args: Record<string, unknown>; id?: string }
  | { wait: Gate };

/** Which answer to give: the turn's user text and the step within the turn (0 for its first model call). */
export type Answer = (turn: { input: string; step: number; request: ModelRequest }) => Piece[];

/**
 * A streaming test model whose answers are scripts of text, reasoning, tool calls and gates,
 * picked by the turn's input: one model serves many chats and runs at once, each run's answer
 * decided by what it was asked, so tests stay independent and deterministic.
 */
export class PacedModel implements Model {
  readonly id = "scripted:paced";
  /** Every request body, in order (as `model_request` reports it). */
  readonly bodies: Record<string, unknown>[] = [];
  #ids = 0;

  constructor(private readonly answer: Answer) {}

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    const body = requestBody(this.id, request);
    this.bodies.push(body);
    observer.onRequest({ body, attempt: 1 });
    const lastUser = request.messages.findLastIndex((m) => m.role === "user");
    const user = request.messages[lastUser];
    const input = user?.role === "user" ? user.content : "";
    const step = request.messages.slice(lastUser + 1).filter((m) => m.role === "assistant").length;
    let text = "";
    const reasoning: ReasoningPart[] = [];
    const toolCalls: ToolCall[] = [];
    for (const piece of this.answer({ input, step, request })) {
      if ("wait" in piece) await piece.wait.pass(request.signal);
      else if ("text" in piece) {
        text += piece.text;
        observer.onDelta?.({ type: "text", text: piece.text });
      } else if ("reasoning" in piece) {
        reasoning.push({ type: "reasoning", provider: "scripted", text: piece.reasoning });
        observer.onDelta?.({ type: "reasoning", text: piece.reasoning });
      } else {
        const call = {
          id: piece.id ?? `call_${++this.#ids}`,
          name: piece.call,
          arguments: JSON.stringify(piece.args),
        };
        observer.onDelta?.({
          type: "tool_call",
          index: toolCalls.length,
          id: call.id,
          name: call.name,
          argumentsDelta: call.arguments,
        });
        toolCalls.push(call);
      }
    }
    return {
      text,
      toolCalls,
      usage: {
        inputTokens: Math.ceil(JSON.stringify(request.messages).length / 4),
        outputTokens: Math.ceil(text.length / 4) + 1,
      },
      finishReason: toolCalls.length > 0 ? "tool_calls" : "stop",
      ...(reasoning.length > 0 && { reasoning }),
      raw: { text, toolCalls },
    };
  }
}
