/**
 * A one-consumer async queue: the loop pushes events synchronously, the consumer pulls them with
 * `for await`. Nothing is dropped; a consumer that stops early (`break`) stops reading, `onLeave`
 * is told (the agent stops the run: nobody is watching it any more), and from then on nothing is
 * kept for it, so a long run cannot pile up events nobody will read.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  readonly #onLeave: (() => void) | undefined;
  #buffer: T[] = [];
  #waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | undefined;
  #closed = false;
  #failure: { error: unknown } | undefined;

  constructor(onLeave?: () => void) {
    this.#onLeave = onLeave;
  }

  push(item: T): void {
    if (this.#closed) return;
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = undefined;
      waiting.resolve({ value: item, done: false });
    } else {
      this.#buffer.push(item);
    }
  }

  close(): void {
    this.#closed = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.resolve({ value: undefined, done: true });
  }

  /** Closes the channel so that, once the buffer is drained, the consumer's next read throws `error`. */
  fail(error: unknown): void {
    if (this.#closed) return;
    this.#failure = { error };
    this.#closed = true;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(error);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.#buffer.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.#failure) {
          const { error } = this.#failure;
          this.#failure = undefined;
          return Promise.reject(error);
        }
        if (this.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => {
          this.#waiting = { resolve, reject };
        });
      },
      return: () => {
        // Only a consumer that leaves before the end stops the run; after the end it is a no-op.
        if (!this.#closed) this.#onLeave?.();
        this.#closed = true;
        this.#buffer = [];
        this.#failure = undefined;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
