import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The design's rule of style: small files, one concept each; a file past about 300 lines is split
// by concept (not cut in half). The ceiling leaves "about" some room, so a file at 305 lines is
// not a failure, while one that grew a second concept (the serve logs were 508 and 395 lines) is.
// Tests are not counted: a test file holds one subject's cases, however many.
const CEILING = 320;
const SRC = fileURLToPath(new URL("../src", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    if (!/\.tsx?$/.test(entry.name) || /\.test(-d)?\.tsx?$/.test(entry.name)) return [];
    return [path];
  });
}

describe("the source files of src/", () => {
  const files = sourceFiles(SRC);

  it("are found", () => {
    expect(files.length).toBeGreaterThan(300);
  });

  it(`stay small: none is over ${CEILING} lines (split it by concept)`, () => {
    const over = files
      .map((file) => ({
        file: relative(SRC, file),
        lines: readFileSync(file, "utf8").split("\n").length - 1,
      }))
      .filter(({ lines }) => lines > CEILING)
      .map(({ file, lines }) => `${file}: ${lines} lines`);
    expect(over).toEqual([]);
  });
});
