/**
 * A one-consumer async queue: the loop pushes events synchronously, the consumer pulls them with
 * `for await`. Nothing is dropped; a consumer that stops early (`break`) stops reading, `onLeave`
 * is told (the agent stops the run: nobody is watching it any more), and from then on nothing is
 * kept for it, so a long run cannot pile up events nobody will read.
 */
export class EventChannel<T> implements AsyncIterable<T> {
  readonly #onLeave: (() => void) | undefined;
  /**
   * Events not read yet: `#buffer[#head]` onwards. Read from a moving head (a slot read is
   * cleared, so the event is not kept) instead of `shift()`, which copies the rest of a long array
   * on every read.
   */
  #buffer: (T | undefined)[] = [];
  #head = 0;
  /** The consumer's pending read, when it is waiting for the next event. */
  #resolve: ((result: IteratorResult<T>) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  #closed = false;
  #failure: { error: unknown } | undefined;

  constructor(onLeave?: () => void) {
    this.#onLeave = onLeave;
  }

  push(item: T): void {
    if (this.#closed) return;
    const resolve = this.#resolve;
    if (resolve) {
      this.#resolve = undefined;
      this.#reject = undefined;
      resolve({ value: item, done: false });
    } else {
      this.#buffer.push(item);
    }
  }

  close(): void {
    this.#closed = true;
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.#reject = undefined;
    resolve?.({ value: undefined, done: true });
  }

  /** Closes the channel so that, once the buffer is drained, the consumer's next read throws `error`. */
  fail(error: unknown): void {
    if (this.#closed) return;
    this.#failure = { error };
    this.#closed = true;
    const reject = this.#reject;
    this.#resolve = undefined;
    this.#reject = undefined;
    reject?.(error);
  }

  /** The oldest unread event, taken off the buffer. */
  #take(): T | undefined {
    if (this.#head === this.#buffer.length) return undefined;
    const item = this.#buffer[this.#head];
    this.#buffer[this.#head++] = undefined;
    if (this.#head === this.#buffer.length) {
      this.#buffer.length = 0;
      this.#head = 0;
    }
    return item;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.#take();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.#failure) {
          const { error } = this.#failure;
          this.#failure = undefined;
          return Promise.reject(error);
        }
        if (this.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => {
          this.#resolve = resolve;
          this.#reject = reject;
        });
      },
      return: () => {
        // Only a consumer that leaves before the end stops the run; after the end it is a no-op.
        if (!this.#closed) this.#onLeave?.();
        this.#closed = true;
        this.#buffer = [];
        this.#head = 0;
        this.#failure = undefined;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
