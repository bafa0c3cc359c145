import type { Model, ModelObserver, ModelRequest, ModelResponse } from "../../src/index.js";

/** The words a SlowModel streams: `w0 w1 ... w{n-1} `. */
export function words(n: number): string {
  return Array.from({ length: n }, (_, i) => `w${i} `).join("");
}

/**
 * A model that streams `count` words, one every `delayMs`, so a client can leave and come
 * back mid-answer.
 */
export class SlowModel implements Model {
  readonly id = "slow:test";
  readonly price = { inputPerMTok: 1, outputPerMTok: 2 };
  constructor(
    readonly count: number,
    readonly delayMs: number,
  ) {}

  async generate(request: ModelRequest, observer: ModelObserver): Promise<ModelResponse> {
    observer.onRequest({ body: { model: this.id, messages: request.messages }, attempt: 1 });
    const text = words(this.count);
    for (const word of text.match(/\S+\s/g) ?? []) {
      await new Promise<void>((resolve, reject) => {
        if (request.signal.aborted) return reject(request.signal.reason);
        const stop = () => {
          clearTimeout(t);
          reject(request.signal.reason);
        };
        const t = setTimeout(() => {
          request.signal.removeEventListener("abort", stop);
          resolve();
        }, this.delayMs);
        request.signal.addEventListener("abort", stop, { once: true });
      });
      if (request.stream) observer.onDelta?.({ type: "text", text: word });
    }
    return {
      text,
      toolCalls: [],
      usage: { inputTokens: 10, outputTokens: this.count },
      finishReason: "stop",
    };
  }
}
