/** Every string value inside a JSON-like value (not its keys), depth-first, at most `limit` of them. */
export function stringsIn(value: unknown, limit = 10_000): string[] {
  const found: string[] = [];
  const seen = new Set<object>();
  const walk = (v: unknown, depth: number): void => {
    if (found.length >= limit) return;
    if (typeof v === "string") {
      found.push(v);
      return;
    }
    // Validated arguments are JSON-shaped, but a schema's transform may build anything: no cycles, bounded depth.
    if (v === null || typeof v !== "object" || seen.has(v) || depth > 64) return;
    seen.add(v);
    if (Array.isArray(v)) {
      for (const item of v) walk(item, depth + 1);
      return;
    }
    for (const item of Object.values(v)) walk(item, depth + 1);
  };
  walk(value, 0);
  return found;
}
