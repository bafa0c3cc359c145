/** Finding a pattern's matches without the allocations of `matchAll` (the redactor scans streams with it). */

/**
 * Every match of the global `pattern` in `value` as `[start, end)`, pushed to `into`: what
 * `value.matchAll(pattern)` finds, without the copy of the pattern and the iterator matchAll makes
 * on every call (this runs on every scan of a streamed answer). Starts at 0 and leaves `lastIndex`
 * at 0, as `replace` does with the same pattern.
 */
export function collectMatches(pattern: RegExp, value: string, into: [number, number][]): void {
  // `v` (unicodeSets) steps by code points too; ES2023's lib does not name it yet.
  const unicode = pattern.unicode || (pattern as { unicodeSets?: boolean }).unicodeSets === true;
  pattern.lastIndex = 0;
  try {
    for (let match = pattern.exec(value); match !== null; match = pattern.exec(value)) {
      const length = match[0].length;
      into.push([match.index, match.index + length]);
      // An empty match moves on one character (one code point with `u`), as matchAll does.
      if (length === 0) pattern.lastIndex = advance(value, pattern.lastIndex, unicode);
    }
  } finally {
    pattern.lastIndex = 0;
  }
}

/** The index after `at` in `value`: past a whole surrogate pair when `unicode`. */
function advance(value: string, at: number, unicode: boolean): number {
  if (!unicode || at + 1 >= value.length) return at + 1;
  const code = value.charCodeAt(at);
  if (code < 0xd800 || code > 0xdbff) return at + 1;
  const next = value.charCodeAt(at + 1);
  return next >= 0xdc00 && next <= 0xdfff ? at + 2 : at + 1;
}
