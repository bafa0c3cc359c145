/**
 * What changed between two request bodies, by JSON path. Provider-neutral: it knows nothing of
 * OpenAI or Anthropic shapes, only that prompts grow by arrays gaining items, so an array is
 * compared by its common prefix and suffix and reported as items inserted, removed or changed.
 */

/** One change between two JSON values. */
export type DiffEntry =
  | { kind: "added"; path: string; value: unknown }
  | { kind: "removed"; path: string; value: unknown }
  | { kind: "changed"; path: string; before: unknown; after: unknown };

/** The changes from one request body to the next. */
export interface RequestDiff {
  identical: boolean;
  entries: DiffEntry[];
  /** Top-level fields present in both and equal (e.g. `model`, `tools`). */
  unchanged: string[];
}

/** Structural diff of two request bodies (or any two JSON values). */
export function diffRequests(before: unknown, after: unknown): RequestDiff {
  const entries: DiffEntry[] = [];
  diffValue(before, after, "", entries);
  const unchanged: string[] = [];
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(after))
      if (key in before && deepEqual(before[key], after[key])) unchanged.push(key);
  }
  return { identical: entries.length === 0, entries, unchanged };
}

/** Structural equality of JSON values (key order ignored). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/** The first path where two JSON values differ, or undefined when they are equal. */
export function firstDifference(a: unknown, b: unknown): DiffEntry | undefined {
  const entries: DiffEntry[] = [];
  diffValue(a, b, "", entries);
  return entries[0];
}

/** A short human line for one entry, e.g. `+ messages[3] (tool: add → 210)`. */
export function describeEntry(entry: DiffEntry): string {
  const path = entry.path || "(body)";
  switch (entry.kind) {
    case "added":
      return `+ ${path} ${describeValue(entry.value)}`;
    case "removed":
      return `- ${path} ${describeValue(entry.value)}`;
    case "changed":
      return `~ ${path} ${describeValue(entry.before)} → ${describeValue(entry.after)}`;
  }
}

/** A one-line preview of a JSON value: a message shows its role and the start of its text. */
export function describeValue(value: unknown, max = 80): string {
  if (typeof value === "string") return JSON.stringify(clip(value, max));
  if (!isObject(value)) return clip(JSON.stringify(value) ?? String(value), max);
  const role = typeof value.role === "string" ? value.role : typeof value.type === "string" ? value.type : "";
  const text = firstText(value);
  if (role) return `(${role}${text ? `: ${clip(text, max)}` : ""})`;
  return clip(JSON.stringify(value), max);
}

function diffValue(a: unknown, b: unknown, path: string, out: DiffEntry[]): void {
  if (deepEqual(a, b)) return;
  if (Array.isArray(a) && Array.isArray(b)) {
    diffArray(a, b, path, out);
    return;
  }
  if (isObject(a) && isObject(b)) {
    for (const key of Object.keys(a)) {
      const p = join(path, key);
      if (!(key in b) || b[key] === undefined) {
        if (a[key] !== undefined) out.push({ kind: "removed", path: p, value: a[key] });
      } else diffValue(a[key], b[key], p, out);
    }
    for (const key of Object.keys(b)) {
      if ((!(key in a) || a[key] === undefined) && b[key] !== undefined)
        out.push({ kind: "added", path: join(path, key), value: b[key] });
    }
    return;
  }
  out.push({ kind: "changed", path, before: a, after: b });
}

function diffArray(a: unknown[], b: unknown[], path: string, out: DiffEntry[]): void {
  const ops = alignItems(a.map(canonical), b.map(canonical));
  // Between two kept items, a run of removals and insertions of the same length is an edit in place.
  let removed: number[] = [];
  let added: number[] = [];
  const flush = () => {
    if (removed.length === added.length) {
      for (const [k, i] of removed.entries())
        diffValue(a[i], b[added[k] as number], `${path}[${added[k]}]`, out);
    } else {
      for (const i of removed) out.push({ kind: "removed", path: `${path}[${i}]`, value: a[i] });
      for (const j of added) out.push({ kind: "added", path: `${path}[${j}]`, value: b[j] });
    }
    removed = [];
    added = [];
  };
  for (const op of ops) {
    if (op.kind === "keep") flush();
    else if (op.kind === "remove") removed.push(op.i);
    else added.push(op.j);
  }
  flush();
}

type AlignOp =
  | { kind: "keep"; i: number; j: number }
  | { kind: "remove"; i: number }
  | { kind: "add"; j: number };

const MAX_ALIGN_CELLS = 4_000_000;

/**
 * Aligns two item lists by their longest common subsequence, so trimming or inserting a message
 * shows as that, not as every later message changed. Huge lists fall back to prefix and suffix.
 */
function alignItems(a: string[], b: string[]): AlignOp[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  )
    suffix++;
  const ops: AlignOp[] = [];
  for (let k = 0; k < prefix; k++) ops.push({ kind: "keep", i: k, j: k });
  const am = a.slice(prefix, a.length - suffix);
  const bm = b.slice(prefix, b.length - suffix);
  const n = am.length;
  const m = bm.length;
  if (n * m > MAX_ALIGN_CELLS) {
    for (let i = 0; i < n; i++) ops.push({ kind: "remove", i: prefix + i });
    for (let j = 0; j < m; j++) ops.push({ kind: "add", j: prefix + j });
  } else {
    // lcs[i][j]: length of the LCS of am[i..] and bm[j..], in one flat array.
    const lcs = new Uint32Array((n + 1) * (m + 1));
    const at = (i: number, j: number) => lcs[i * (m + 1) + j] as number;
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        lcs[i * (m + 1) + j] = am[i] === bm[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && am[i] === bm[j]) ops.push({ kind: "keep", i: prefix + i++, j: prefix + j++ });
      else if (j < m && (i === n || at(i, j + 1) >= at(i + 1, j))) ops.push({ kind: "add", j: prefix + j++ });
      else ops.push({ kind: "remove", i: prefix + i++ });
    }
  }
  for (let k = 0; k < suffix; k++)
    ops.push({ kind: "keep", i: a.length - suffix + k, j: b.length - suffix + k });
  return ops;
}

/** JSON text with sorted keys: equal strings for deeply equal values. */
function canonical(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      v !== null && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(
            Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)),
          )
        : v,
    ) ?? "undefined"
  );
}

function join(path: string, key: string): string {
  const part = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
  return path === "" ? part : /^[A-Za-z_$]/.test(part) ? `${path}.${part}` : `${path}[${part}]`;
}

function firstText(value: Record<string, unknown>): string {
  for (const key of ["content", "text", "parts"]) {
    const v = value[key];
    if (typeof v === "string" && v !== "") return v;
    if (Array.isArray(v)) {
      for (const part of v) {
        if (typeof part === "string") return part;
        if (isObject(part)) {
          const inner = firstText(part);
          if (inner) return inner;
        }
      }
    }
  }
  const calls = value.toolCalls ?? value.tool_calls;
  if (Array.isArray(calls) && calls.length > 0) return `${calls.length} tool call(s)`;
  return "";
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
