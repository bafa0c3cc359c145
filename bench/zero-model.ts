import type { Model, ModelObserver, ModelRequest, ModelResponse } from "glassloop";

const USAGE = { inputTokens: 1, outputTokens: 1 };

/**
 * A model that answers instantly and does no work of its own (no token estimation, no copies), so
 * what a bench measures is the loop: one `echo` call per step with fresh arguments (the loop guard
 * must not short-circuit it), then a text answer at step `steps`. Records when each call began.
 */
export class ZeroLatencyModel implements Model {
  readonly id = "bench:zero-latency";
  /** `performance.now()` at the start of every call. */
  readonly stamps: number[] = [];
  #calls = 0;

  constructor(private readonly steps: number) {}

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    this.stamps.push(performance.now());
    observer.onRequest({ body: request.messages, attempt: 1 });
    const n = ++this.#calls;
    if (n >= this.steps) return { text: "done", toolCalls: [], usage: USAGE, finishReason: "stop" };
    return {
      text: "",
      toolCalls: [{ id: `call_${n}`, name: "echo", arguments: `{"i":${n}}` }],
      usage: USAGE,
      finishReason: "tool_calls",
    };
  }
}
