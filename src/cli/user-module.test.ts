import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CliIO } from "./command.js";
import { importUserModule, moduleFormat } from "./user-module.js";

function project(type: string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-user-module-"));
  writeFileSync(join(dir, "package.json"), JSON.stringify(type === undefined ? {} : { type }));
  return dir;
}

describe("loading a user's module", () => {
  it("knows how Node and tsx will load it: by extension, else by package.json's type", () => {
    const esm = project("module");
    const cjs = project("commonjs");
    const plain = project(undefined);
    expect(moduleFormat(join(esm, "agent.ts")).kind).toBe("module");
    expect(moduleFormat(join(cjs, "agent.mts")).kind).toBe("module");
    expect(moduleFormat(join(plain, "agent.js")).kind).toBe("module");
    expect(moduleFormat(join(esm, "agent.cts"))).toMatchObject({
      kind: "commonjs",
      fix: "rename it to .mts",
    });
    expect(moduleFormat(join(plain, "agent.ts"))).toMatchObject({
      kind: "commonjs",
      fix: `add "type": "module" to ${join(plain, "package.json")}, or rename it to .mts`,
    });
    expect(moduleFormat(join(cjs, "agent.js"))).toMatchObject({
      kind: "commonjs",
      why: `${join(cjs, "package.json")} says "type": "commonjs", not "type": "module"`,
    });
  });

  it("refuses, before running anything, a module that would load a second copy of glassloop as CommonJS", async () => {
    const dir = project("commonjs");
    mkdirSync(join(dir, "evals"));
    writeFileSync(join(dir, "evals", "x.eval.ts"), "throw new Error('ran');\n");
    const io = { cwd: dir } as CliIO;
    await expect(importUserModule("evals/x.eval.ts", io, "eval", "eval file")).rejects.toThrow(
      /evals\/x\.eval\.ts would load as CommonJS .* glassloop is ES modules only: add "type": "module" to .*package\.json, or rename it to \.mts/,
    );
  });

  it("a module importing a package nothing above it installed says to install it there", async () => {
    const dir = project("module");
    writeFileSync(join(dir, "agent.mjs"), 'import "glassloop-not-installed-anywhere";\nexport default 1;\n');
    await expect(
      importUserModule("agent.mjs", { cwd: dir } as CliIO, "serve", "serve module"),
    ).rejects.toThrow(
      'agent.mjs (or a module it imports) needs "glassloop-not-installed-anywhere", which is not installed where it can find it: npm i glassloop-not-installed-anywhere in the module\'s project',
    );
  });

  it("loads an ES module, TypeScript included", async () => {
    const dir = project("module");
    writeFileSync(join(dir, "agent.ts"), "const n: number = 42;\nexport default n;\n");
    const loaded = await importUserModule("agent.ts", { cwd: dir } as CliIO, "mcp", "agent module");
    expect(loaded.default).toBe(42);
  });
});
