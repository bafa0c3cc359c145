/**
 * `make` called on first use and its value kept: what a program pays for only when it needs it,
 * and only once. For a dynamic `import()` (a provider's protocol, loaded on its first call) the
 * kept value is the promise, so every caller shares one load and a failed load stays failed (a
 * missing file of an install is not healed by asking again, and every caller sees the same error).
 * For a value built synchronously (a zod schema most programs never use) a `make` that throws
 * keeps nothing, and the next call builds again.
 */
export function once<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}
