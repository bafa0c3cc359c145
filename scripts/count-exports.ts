/**
 * `npx tsx scripts/count-exports.ts [file]`: how many names each package entry exports, as the
 * TypeScript checker sees them with every `export *` expanded, split by kind. Without an argument
 * it counts every entry of tsconfig.json's `paths` (`glassloop`, `glassloop/models`, …), one JSON
 * line each; with a file, that file alone. Issue 13 keeps the root at about 80.
 */
import { readFileSync } from "node:fs";
import ts from "typescript";

/** The counts of one entry file. */
export interface ExportCounts {
  total: number;
  classes: number;
  functions: number;
  otherValues: number;
  typesOnly: number;
  exportStar: number;
}

/** The entries and their source files, from tsconfig.json's `paths`. */
export function packageEntries(): { entry: string; file: string }[] {
  const tsconfig = JSON.parse(readFileSync("tsconfig.json", "utf8")) as {
    compilerOptions: { paths: Record<string, [string]> };
  };
  return Object.entries(tsconfig.compilerOptions.paths)
    .filter(([entry]) => entry === "glassloop" || entry.startsWith("glassloop/"))
    .map(([entry, [file]]) => ({ entry, file: file.replace(/^\.\//, "") }));
}

/** Counts the exports of each file, in one TypeScript program. */
export function countExports(files: readonly string[]): Map<string, ExportCounts> {
  const program = ts.createProgram([...files], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  });
  const checker = program.getTypeChecker();
  const result = new Map<string, ExportCounts>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!source || !moduleSymbol) throw new Error(`${file} is not a module`);
    const counts = { total: 0, classes: 0, functions: 0, otherValues: 0, typesOnly: 0, exportStar: 0 };
    for (const name of checker.getExportsOfModule(moduleSymbol)) {
      const target = name.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(name) : name;
      counts.total++;
      if (target.flags & ts.SymbolFlags.Class) counts.classes++;
      else if (target.flags & ts.SymbolFlags.Function) counts.functions++;
      else if (target.flags & ts.SymbolFlags.Value) counts.otherValues++;
      else counts.typesOnly++;
    }
    counts.exportStar = (source.text.match(/export (type )?\* from/g) ?? []).length;
    result.set(file, counts);
  }
  return result;
}

const file = process.argv[2];
if (file) {
  console.log(JSON.stringify(countExports([file]).get(file)));
} else {
  const entries = packageEntries();
  const counts = countExports(entries.map((e) => e.file));
  for (const { entry, file } of entries) console.log(JSON.stringify({ entry, ...counts.get(file) }));
}
