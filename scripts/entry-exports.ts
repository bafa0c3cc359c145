/**
 * The package's entries (from tsconfig.json's `paths`) and the names each exports, as the
 * TypeScript checker sees them with every `export *` expanded: used by scripts/count-exports.ts
 * and test/public-api.test.ts.
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

/** One exported name of an entry and what the checker says it is. */
export interface ExportedName {
  name: string;
  kind: "class" | "function" | "value" | "type";
}

/** The exported names of each file, sorted, in one TypeScript program. */
export function exportedNames(files: readonly string[]): Map<string, ExportedName[]> {
  const program = ts.createProgram([...files], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  });
  const checker = program.getTypeChecker();
  const result = new Map<string, ExportedName[]>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!source || !moduleSymbol) throw new Error(`${file} is not a module`);
    const names = checker.getExportsOfModule(moduleSymbol).map((symbol): ExportedName => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const kind =
        target.flags & ts.SymbolFlags.Class
          ? "class"
          : target.flags & ts.SymbolFlags.Function
            ? "function"
            : target.flags & ts.SymbolFlags.Value
              ? "value"
              : "type";
      return { name: symbol.name, kind };
    });
    result.set(
      file,
      names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    );
  }
  return result;
}

/** Counts the exports of each file by kind, and its `export *` lines. */
export function countExports(files: readonly string[]): Map<string, ExportCounts> {
  const result = new Map<string, ExportCounts>();
  for (const [file, names] of exportedNames(files)) {
    const of = (kind: ExportedName["kind"]) => names.filter((n) => n.kind === kind).length;
    result.set(file, {
      total: names.length,
      classes: of("class"),
      functions: of("function"),
      otherValues: of("value"),
      typesOnly: of("type"),
      exportStar: (readFileSync(file, "utf8").match(/export (type )?\* from/g) ?? []).length,
    });
  }
  return result;
}
