import { describe, expect, it } from "vitest";
import { packedMap } from "./packed-map.js";

describe("packedMap", () => {
  it("maps in order and passes each index, as Array.prototype.map does", () => {
    const seen: number[] = [];
    const out = packedMap(["a", "b", "c"], (item, i) => {
      seen.push(i);
      return `${i}:${item}`;
    });
    expect(out).toEqual(["0:a", "1:b", "2:c"]);
    expect(seen).toEqual([0, 1, 2]);
  });

  it("returns a new empty array for an empty list, and never the list itself", () => {
    const list: number[] = [];
    const out = packedMap(list, (n) => n * 2);
    expect(out).toEqual([]);
    expect(out).not.toBe(list);
  });

  it("leaves a hole in the input as undefined in the output instead of a hole", () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is what is tested
    const out = packedMap([1, , 3], (n) => n);
    expect(out).toEqual([1, undefined, 3]);
    expect(1 in out).toBe(true);
  });
});
