/**
 * `load` called on first use and its promise kept: a dynamic `import()` that the program pays for
 * only when it needs the module, and only once. A failed load stays failed (a missing file of an
 * install is not healed by asking again, and every caller sees the same error).
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load();
    return loaded;
  };
}
