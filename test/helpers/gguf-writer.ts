/**
 * A minimal GGUF v3 writer (metadata + F32 tensors), enough to build test models by hand.
 * Layout per the GGUF spec: header, metadata key/values, tensor infos, padding, aligned tensor data.
 */

/** GGUF metadata value types (spec: `gguf_metadata_value_type`). */
enum ValueType {
  Uint32 = 4,
  Int32 = 5,
  Float32 = 6,
  Bool = 7,
  String = 8,
  Array = 9,
}

/** A metadata value with its GGUF type spelled out (JS numbers alone are ambiguous). */
export type GgufValue =
  | { type: "u32"; value: number }
  | { type: "f32"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "string[]"; value: readonly string[] }
  | { type: "i32[]"; value: readonly number[] }
  | { type: "f32[]"; value: readonly number[] };

/** One F32 tensor; `shape` is in GGUF order (`ne[0]` first, the contiguous dimension). */
export interface GgufTensor {
  name: string;
  shape: readonly number[];
  data: Float32Array;
}

const ALIGNMENT = 32;
const GGML_TYPE_F32 = 0;

class ByteSink {
  readonly #chunks: Uint8Array[] = [];
  length = 0;

  bytes(b: Uint8Array): void {
    this.#chunks.push(b);
    this.length += b.length;
  }
  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.bytes(b);
  }
  i32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(n);
    this.bytes(b);
  }
  u64(n: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.bytes(b);
  }
  f32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    this.bytes(b);
  }
  string(s: string): void {
    const b = Buffer.from(s, "utf8");
    this.u64(b.length);
    this.bytes(b);
  }
  padTo(alignment: number): void {
    const rest = this.length % alignment;
    if (rest !== 0) this.bytes(new Uint8Array(alignment - rest));
  }
  concat(): Uint8Array {
    return Buffer.concat(this.#chunks);
  }
}

function writeValue(sink: ByteSink, v: GgufValue): void {
  switch (v.type) {
    case "u32":
      sink.u32(ValueType.Uint32);
      sink.u32(v.value);
      return;
    case "f32":
      sink.u32(ValueType.Float32);
      sink.f32(v.value);
      return;
    case "bool":
      sink.u32(ValueType.Bool);
      sink.bytes(Uint8Array.of(v.value ? 1 : 0));
      return;
    case "string":
      sink.u32(ValueType.String);
      sink.string(v.value);
      return;
    case "string[]":
      sink.u32(ValueType.Array);
      sink.u32(ValueType.String);
      sink.u64(v.value.length);
      for (const s of v.value) sink.string(s);
      return;
    case "i32[]":
      sink.u32(ValueType.Array);
      sink.u32(ValueType.Int32);
      sink.u64(v.value.length);
      for (const n of v.value) sink.i32(n);
      return;
    case "f32[]":
      sink.u32(ValueType.Array);
      sink.u32(ValueType.Float32);
      sink.u64(v.value.length);
      for (const n of v.value) sink.f32(n);
      return;
  }
}

/** Serializes metadata and F32 tensors into the bytes of a GGUF v3 file. */
export function encodeGguf(
  metadata: Readonly<Record<string, GgufValue>>,
  tensors: readonly GgufTensor[],
): Uint8Array {
  const sink = new ByteSink();
  sink.bytes(Buffer.from("GGUF", "ascii"));
  sink.u32(3);
  sink.u64(tensors.length);
  sink.u64(Object.keys(metadata).length);
  for (const [key, value] of Object.entries(metadata)) {
    sink.string(key);
    writeValue(sink, value);
  }
  let offset = 0;
  for (const t of tensors) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (count !== t.data.length) {
      throw new Error(
        `tensor ${t.name}: shape ${t.shape.join("x")} needs ${count} values, got ${t.data.length}`,
      );
    }
    sink.string(t.name);
    sink.u32(t.shape.length);
    for (const dim of t.shape) sink.u64(dim);
    sink.u32(GGML_TYPE_F32);
    sink.u64(offset);
    offset += Math.ceil(t.data.byteLength / ALIGNMENT) * ALIGNMENT;
  }
  sink.padTo(ALIGNMENT);
  for (const t of tensors) {
    sink.bytes(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    sink.padTo(ALIGNMENT);
  }
  return sink.concat();
}
