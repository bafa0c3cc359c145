/** One table of benchmark results; every bench section returns one or more. */
export interface BenchTable {
  title: string;
  columns: string[];
  rows: (string | number)[][];
  /** Lines printed under the table: what was measured and against which target. */
  notes?: string[];
}

/** A bench section: a name for `npm run bench -- <name>` and a function that measures. */
export interface BenchSection {
  name: string;
  run: () => Promise<BenchTable[]>;
}

/** Renders a table as aligned plain text (numbers right-aligned). */
export function formatTable(table: BenchTable): string {
  const cells = [table.columns, ...table.rows.map((row) => row.map(String))];
  const widths = table.columns.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
  const numeric = table.columns.map((_, i) => table.rows.every((row) => typeof row[i] === "number"));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  const out = [`## ${table.title}`, "", line(table.columns), widths.map((w) => "-".repeat(w)).join("  ")];
  for (const row of cells.slice(1)) out.push(line(row));
  for (const note of table.notes ?? []) out.push(`  ${note}`);
  return out.join("\n");
}

/** Rounds to `digits` decimals, as a number so the table right-aligns it. */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
