/**
 * The import graph of `src/`, read with the TypeScript compiler's parser (no extra dependency):
 * every module's imports and re-exports, each marked runtime or type-only, so a test can check
 * the rooms and cycles `docs/architecture.md` describes.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/** One import of a module: the module it names and whether it survives compilation. */
export interface ImportEdge {
  from: string;
  to: string;
  /** `import type`, `export type`, or only type specifiers: erased, so it cannot make a load-time cycle. */
  typeOnly: boolean;
  /** `import("...")`: loaded on demand, so it cannot make a load-time cycle either. */
  dynamic: boolean;
}

/** The source files under `root` that ship (tests and type tests left out), relative to `root`. */
export function sourceFiles(root: string, dir = root): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(root, path));
    else if (/\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name))
      files.push(relative(root, path));
  }
  return files.sort();
}

/** Every internal import of every source file under `root`; package imports are left out. */
export function importGraph(root: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(root)) {
    const text = readFileSync(join(root, file), "utf8");
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    const add = (specifier: string, typeOnly: boolean, dynamic: boolean) => {
      if (!specifier.startsWith(".")) return;
      edges.push({ from: file, to: resolveSpecifier(root, file, specifier), typeOnly, dynamic });
    };
    for (const statement of source.statements) {
      if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
        add(statement.moduleSpecifier.text, importIsTypeOnly(statement), false);
      } else if (
        ts.isExportDeclaration(statement) &&
        statement.moduleSpecifier &&
        ts.isStringLiteral(statement.moduleSpecifier)
      ) {
        add(statement.moduleSpecifier.text, exportIsTypeOnly(statement), false);
      }
    }
    const visit = (node: ts.Node) => {
      if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteralLike(node.arguments[0])
      ) {
        add(node.arguments[0].text, false, true);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return edges;
}

function importIsTypeOnly(statement: ts.ImportDeclaration): boolean {
  const clause = statement.importClause;
  if (!clause) return false; // `import "./x.js"` runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  // `import { type A }` is not erased: verbatimModuleSyntax keeps it as `import {} from`, which
  // still loads the module. Only `import type` is.
  return false;
}

function exportIsTypeOnly(statement: ts.ExportDeclaration): boolean {
  // As for imports, `export { type A } from` keeps loading the module; only `export type` does not.
  return statement.isTypeOnly;
}

function resolveSpecifier(root: string, file: string, specifier: string): string {
  const base = resolve(root, dirname(file), specifier);
  for (const candidate of [
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.js$/, ".tsx"),
    join(base, "index.ts"),
  ]) {
    if (existsSync(candidate)) return relative(root, candidate);
  }
  throw new Error(`${file}: cannot resolve ${specifier}`);
}

/** The room a source file belongs to: its rule in `ROOMS`, the most specific prefix that matches (none: undefined). */
export function roomOf(file: string, rooms: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const room of rooms) {
    const matches = room.endsWith(".ts") ? file === room : file.startsWith(`${room}/`);
    if (matches && (!best || room.length > best.length)) best = room;
  }
  return best;
}

/** Cycles among runtime, load-time imports (type-only and dynamic ones left out), each as a sorted list of files. */
export function runtimeCycles(edges: readonly ImportEdge[]): string[][] {
  return importCycles(edges.filter((e) => !e.typeOnly && !e.dynamic));
}

/** Cycles among all the given imports (value, type-only and dynamic alike), each as a sorted list of files. */
export function importCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    const list = next.get(e.from) ?? [];
    list.push(e.to);
    next.set(e.from, list);
  }
  // Tarjan's strongly connected components: every component of more than one file (or a file
  // importing itself) is a cycle.
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string) => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!order.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, order.get(w) ?? 0));
    }
    if (low.get(v) === order.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of next.keys()) if (!order.has(v)) connect(v);
  return cycles;
}
