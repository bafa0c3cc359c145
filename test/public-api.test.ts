import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importGraph } from "./helpers/import-graph.js";

// The package's public API in layers (docs/architecture.md, "The public API in layers"): the root
// for what every program needs, one subpath entry per room for the rest, internals nowhere.
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const read = (file: string) => JSON.parse(readFileSync(`${ROOT}/${file}`, "utf8"));
const pkg = read("package.json") as { exports: Record<string, { types: string; import: string }> };
const paths = (read("tsconfig.json") as { compilerOptions: { paths: Record<string, [string]> } })
  .compilerOptions.paths;
const tsdownEntries = () => {
  const text = readFileSync(`${ROOT}/tsdown.config.ts`, "utf8");
  const block = /entry: \{([\s\S]*?)\}/.exec(text)?.[1] ?? "";
  return Object.fromEntries(
    [...block.matchAll(/^\s*"?([\w/-]+)"?: "([^"]+)"/gm)].map((m) => [m[1] as string, m[2] as string]),
  );
};

describe("the package's entries", () => {
  it("are one list: each export of package.json is a tsdown entry built from the file tsconfig's paths name", () => {
    const built = tsdownEntries();
    for (const [key, target] of Object.entries(pkg.exports)) {
      const specifier = key === "." ? "glassloop" : `glassloop/${key.slice(2)}`;
      const source = paths[specifier]?.[0]?.replace(/^\.\//, "");
      expect(source, `${specifier} in tsconfig.json's paths`).toBeDefined();
      const name = target.import.replace(/^\.\/dist\//, "").replace(/\.mjs$/, "");
      expect(built[name], `${specifier}: tsdown entry "${name}"`).toBe(source);
      expect(target.types).toBe(`./dist/${name}.d.mts`);
    }
    const specifiers = Object.keys(paths).filter((p) => p === "glassloop" || p.startsWith("glassloop/"));
    expect(specifiers.length).toBe(Object.keys(pkg.exports).length);
  });

  it("re-export lists, never `export *`, in the room entries", () => {
    for (const file of Object.values(tsdownEntries()).filter((f) => f.startsWith("src/entries/"))) {
      expect(readFileSync(`${ROOT}/${file}`, "utf8"), file).not.toMatch(/export (type )?\* from/);
    }
  });
});

describe("the default store", () => {
  // What loads when `agent.ts` loads, following only static runtime imports (an `import()` loads on
  // demand; `import type` is erased).
  const edges = importGraph(`${ROOT}/src`);
  const loadedWith = (start: string): Set<string> => {
    const seen = new Set([start]);
    const queue = [start];
    for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
      for (const e of edges) {
        if (e.from !== file || e.typeOnly || e.dynamic || seen.has(e.to)) continue;
        seen.add(e.to);
        queue.push(e.to);
      }
    }
    return seen;
  };
  const SQLITE = /^store\/(sqlite-[\w-]+|default-store|migrations)\.ts$/;

  it("is not loaded with the agent: the loop reaches the SQLite store only through import()", () => {
    const loaded = [...loadedWith("agent/agent.ts")];
    expect(loaded.filter((f) => SQLITE.test(f))).toEqual([]);
    expect(edges).toContainEqual(
      expect.objectContaining({
        from: "store/deferred-default-store.ts",
        to: "store/default-store.ts",
        dynamic: true,
      }),
    );
  });
});
