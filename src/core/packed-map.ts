/**
 * `list.map(fn)`, as an array V8 gives one hidden class however it was built.
 *
 * Why not `Array.prototype.map`: its result is a packed array while the builtin builds it and a
 * holey one once TurboFan inlines the call into an optimized caller. Code optimized on one kind
 * meets the other a few hundred runs in, deoptimizes and is compiled again: in the floor bench
 * that was `takeTurn`, `runStep`, `callHttp`, the stream assembler's `finish`, `toChatBody` and
 * `estimateRequestTokens`, each compiled twice (7–9 % of a process's first 1,000 runs, counted).
 * Pushing onto a literal builds a packed array in every tier. Use it where a hot function's array
 * is read by other hot code; elsewhere `map` reads better.
 */
export function packedMap<T, U>(list: readonly T[], fn: (item: T, index: number) => U): U[] {
  const out: U[] = [];
  for (let i = 0; i < list.length; i++) out.push(fn(list[i] as T, i));
  return out;
}
