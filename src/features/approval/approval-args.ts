/**
 * How the arguments of a call that needs approval are shown and checked: the person decides on
 * the arguments as validated (what the tool will get), and keys the schema would silently drop
 * are refused instead, so nothing the model sent is hidden from the decision.
 */

/** Validated arguments as the JSON text a person reads and a decision is bound to. */
export function argumentsText(args: unknown): string {
  try {
    return (
      JSON.stringify(args, (_key, value: unknown) => {
        if (typeof value === "bigint") return `${value}n`;
        if (value instanceof Map) return Object.fromEntries(value);
        if (value instanceof Set) return [...value];
        return value;
      }) ?? "null"
    );
  } catch {
    // A cycle: say so rather than show something that is not what runs.
    return String(args);
  }
}

/**
 * Keys of the model's JSON that the validated arguments no longer have (a schema strips unknown
 * keys), as dotted paths; nested objects and arrays are compared where both sides have them.
 */
export function droppedKeys(raw: unknown, validated: unknown, path = ""): string[] {
  if (Array.isArray(raw) && Array.isArray(validated)) {
    const length = Math.min(raw.length, validated.length);
    const out: string[] = [];
    for (let i = 0; i < length; i++) out.push(...droppedKeys(raw[i], validated[i], `${path}${i}.`));
    return out;
  }
  if (!isPlainObject(raw) || !isPlainObject(validated)) return [];
  const out: string[] = [];
  for (const key of Object.keys(raw)) {
    if (!Object.hasOwn(validated, key)) out.push(`${path}${key}`);
    else out.push(...droppedKeys(raw[key], validated[key], `${path}${key}.`));
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
