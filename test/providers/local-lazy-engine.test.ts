import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../../src");

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts") && !/\.test(-d)?\.ts$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
}

describe("node-llama-cpp stays out of the import graph until a local model runs", () => {
  it("no source file imports it statically once types are erased (only engine.ts imports it, dynamically)", async () => {
    const offenders: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      const source = await readFile(file, "utf8");
      if (!source.includes("node-llama-cpp")) continue;
      const js = ts.transpileModule(source, {
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2022,
          verbatimModuleSyntax: true,
        },
      }).outputText;
      if (/(?:from|import)\s*\(?\s*["']node-llama-cpp["']/.test(js)) offenders.push(path.relative(SRC, file));
    }
    expect(offenders).toEqual([]);
  });
});
