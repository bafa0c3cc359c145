/**
 * The text of a streamed answer, built from its deltas without holding it twice on V8's heap
 * while it grows.
 *
 * Why not `text += delta`, or flat parts joined at the end: whatever a stream keeps is allocated
 * in V8's young generation and survives its collections, and V8 grows the young generation (up
 * to 2 × 16 MB of semi-spaces, resident from then on) once the bytes that survived since its last
 * growth exceed its size. Any answer kept on the heap as it arrives therefore costs its own size
 * plus the grown young generation: a 20 MB answer 70–80 MB of peak RSS. Here a short text is a
 * plain string; past `FLAT_CHARS` characters it moves, every `FLAT_CHARS` characters, into
 * resizable `ArrayBuffer`s as UTF-8 (off the heap, so nothing survives a scavenge), and
 * `toString` decodes them once into one flat string and releases them at once (`resize(0)`
 * returns their pages; a plain `Buffer` would keep them until a full collection). Peak: the
 * answer's UTF-8 bytes plus the string, about 2× the answer.
 *
 * Exact: a surrogate pair split between two deltas is kept together, and a text with a lone
 * surrogate (which UTF-8 cannot carry) stays on the heap from there on, in pieces of about
 * `FLAT_CHARS` characters joined at the end.
 */

/** Characters kept as one plain string before they move off the heap. */
export const FLAT_CHARS = 16 * 1024;
/** Bytes one off-heap segment may hold (reserved up front, committed as it fills). */
const SEGMENT_BYTES = 64 * 1024 * 1024;
/** How much a segment's committed size grows at a time. */
const GROW_BYTES = 1024 * 1024;

/** The ES2024 members Node 20 has and the ES2023 library lacks. */
interface ResizableArrayBuffer extends ArrayBuffer {
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}
type ResizableArrayBufferConstructor = new (
  byteLength: number,
  options: { maxByteLength: number },
) => ResizableArrayBuffer;
type WellFormed = { isWellFormed(): boolean };

/** One off-heap segment: `used` bytes of UTF-8, whole characters only. */
interface Segment {
  buffer: ResizableArrayBuffer;
  used: number;
}

/** Appends the deltas of one streamed text; `toString` gives it whole and flat. */
export class StreamedText {
  /** The newest characters (at most about `FLAT_CHARS`), or the whole text while it is short. */
  #tail = "";
  /** Characters in the segments or the flat parts. */
  #movedChars = 0;
  /** The older text off the heap, in order (see the module's comment). */
  #segments: Segment[] = [];
  /** The older text as flat strings instead, once a lone surrogate (or no memory) ruled UTF-8 out. */
  #parts: string[] | undefined;

  readonly #segmentBytes: number;

  /** `segmentBytes`: how many bytes one off-heap segment holds (tests make it small). */
  constructor(options: { segmentBytes?: number } = {}) {
    this.#segmentBytes = options.segmentBytes ?? SEGMENT_BYTES;
  }

  /** Characters so far. */
  get length(): number {
    return this.#movedChars + this.#tail.length;
  }

  /** Adds one delta. */
  append(piece: string): void {
    this.#tail += piece;
    if (this.#tail.length >= FLAT_CHARS) this.#move();
  }

  /** The text so far, one flat string (kept: the next call returns it without copying). */
  toString(): string {
    if (this.#movedChars === 0) return this.#tail;
    // The tail joins the segments when it can, so that one segment decodes to the whole text.
    if (
      this.#parts === undefined &&
      this.#tail !== "" &&
      (this.#tail as unknown as WellFormed).isWellFormed()
    )
      if (this.#write(this.#tail)) this.#tail = "";
    const older = this.#parts ?? this.#segments.map(decode);
    this.#segments = [];
    this.#parts = undefined;
    if (this.#tail !== "") older.push(this.#tail);
    this.#tail = older.length === 1 ? (older[0] as string) : older.join("");
    this.#movedChars = 0;
    return this.#tail;
  }

  /** Moves the tail (but a trailing high surrogate, whose pair may come next) off the heap. */
  #move(): void {
    const tail = this.#tail;
    const last = tail.charCodeAt(tail.length - 1);
    const cut = last >= 0xd800 && last <= 0xdbff ? tail.length - 1 : tail.length;
    const moving = cut === tail.length ? tail : tail.slice(0, cut);
    this.#tail = cut === tail.length ? "" : tail.slice(cut);
    this.#movedChars += moving.length;
    if (this.#parts === undefined && (moving as unknown as WellFormed).isWellFormed() && this.#write(moving))
      return;
    if (this.#parts === undefined) {
      // From here on the text stays on the heap: what moved so far comes back as flat strings.
      this.#parts = this.#segments.map(decode);
      this.#segments = [];
    }
    this.#parts.push(moving);
  }

  /** Writes `text` as UTF-8 into the last segment (a new one when it is full); false when out of memory. */
  #write(text: string): boolean {
    const most = text.length * 3; // a UTF-16 unit is at most 3 bytes of UTF-8 (a pair 4 for 2)
    let segment = this.#segments.at(-1);
    try {
      if (segment === undefined || segment.used + most > this.#segmentBytes) {
        const Resizable = ArrayBuffer as unknown as ResizableArrayBufferConstructor;
        segment = {
          buffer: new Resizable(0, { maxByteLength: Math.max(this.#segmentBytes, most) }),
          used: 0,
        };
        this.#segments.push(segment);
      }
      const { buffer } = segment;
      if (segment.used + most > buffer.byteLength)
        buffer.resize(
          Math.min(buffer.maxByteLength, Math.max(segment.used + most, buffer.byteLength + GROW_BYTES)),
        );
    } catch {
      return false;
    }
    segment.used += Buffer.from(segment.buffer, segment.used).write(text);
    return true;
  }
}

/** A segment's text; its pages go back at once. */
function decode(segment: Segment): string {
  const text = Buffer.from(segment.buffer, 0, segment.used).toString("utf8");
  segment.buffer.resize(0);
  return text;
}
