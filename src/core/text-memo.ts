/**
 * Texts longer than this are never remembered: V8 hashes only this much of a string, so longer
 * keys of one length would all collide, and a long text is rarely seen twice.
 */
const MAX_TEXT = 16_383;

/** Characters of remembered texts per generation (two generations: a few MB at most). */
const GENERATION_CHARS = 1 << 20;

/**
 * A bounded memo from a text to what a pure function made of it (the `Redactor`'s scrubbed text).
 * Two generations: the current one fills up, the previous one still answers (and what it answers
 * moves to the current one), and when the current one is full the previous one is dropped, so
 * the texts in use stay and the memory stays bounded.
 */
export class TextMemo {
  #current = new Map<string, string>();
  #previous = new Map<string, string>();
  #chars = 0;

  /** What was remembered for `text`, or undefined. */
  get(text: string): string | undefined {
    if (text.length > MAX_TEXT) return undefined;
    const current = this.#current.get(text);
    if (current !== undefined) return current;
    const previous = this.#previous.get(text);
    if (previous !== undefined) this.set(text, previous);
    return previous;
  }

  /** Remembers `value` for `text` (a text too long to remember is not). */
  set(text: string, value: string): void {
    if (text.length > MAX_TEXT) return;
    this.#chars += text.length;
    if (this.#chars > GENERATION_CHARS) {
      this.#previous = this.#current;
      this.#current = new Map();
      this.#chars = text.length;
    }
    this.#current.set(text, value);
  }
}
