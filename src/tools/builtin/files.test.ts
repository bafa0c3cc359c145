import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { ToolError } from "glassloop";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runTool } from "../../../test/helpers/run-tool.js";
import { filesTools } from "./files.js";

let base: string;
let root: string;
let outside: string;
let tools: ReturnType<typeof filesTools>;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "glassloop-files-"));
  root = join(base, "root");
  outside = join(base, "outside");
  mkdirSync(join(root, "notes"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, "notes", "todo.md"), "buy milk\n");
  writeFileSync(join(root, "binary.bin"), Buffer.from([1, 2, 0, 3]));
  writeFileSync(join(outside, "secret.txt"), "TOP SECRET");
  symlinkSync(join(outside, "secret.txt"), join(root, "leak.txt"));
  symlinkSync(outside, join(root, "escape"));
  symlinkSync(join(root, "notes", "todo.md"), join(root, "inner-link.md"));
  symlinkSync(join(outside, "nothing-yet.txt"), join(root, "dangling.txt"));
  tools = filesTools({ root, maxReadBytes: 64 });
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const [read, list, write] = [0, 1, 2] as const;
const call = (i: 0 | 1 | 2, args: Record<string, unknown>) => runTool(tools[i], args);

describe("files: inside the root", () => {
  it("reads, lists and writes", async () => {
    expect(await call(read, { path: "notes/todo.md" })).toBe("buy milk\n");
    expect(await call(read, { path: "./notes//todo.md" })).toBe("buy milk\n");
    expect(await call(write, { path: "out/new.txt", content: "hello" })).toBe("Wrote 5 bytes to out/new.txt");
    expect(readFileSync(join(root, "out", "new.txt"), "utf8")).toBe("hello");
    const listing = await call(list, {});
    expect(listing).toContain("notes/");
    expect(listing).toContain("out/");
    expect(listing).toContain("leak.txt (symlink)");
  });

  it("follows a symlink that stays inside the root", async () => {
    expect(await call(read, { path: "inner-link.md" })).toBe("buy milk\n");
  });

  it("cuts long files with a marker and refuses binary ones", async () => {
    writeFileSync(join(root, "long.txt"), "x".repeat(100));
    expect(await call(read, { path: "long.txt" })).toBe(
      `${"x".repeat(64)}\n[truncated: showing 64 of 100 bytes]`,
    );
    await expect(call(read, { path: "binary.bin" })).rejects.toThrow(/looks binary/);
  });

  it("says clearly what is missing", async () => {
    await expect(call(read, { path: "nope.txt" })).rejects.toThrow("No such file or directory: nope.txt");
    await expect(call(read, { path: "notes" })).rejects.toThrow(/is a directory; use list_files/);
  });
});

describe("files: escapes are refused", () => {
  it.each([
    ["../outside/secret.txt", /contains "\.\."/],
    ["notes/../../outside/secret.txt", /contains "\.\."/],
    ["..\\outside\\secret.txt", /contains "\.\."/],
    ["/etc/passwd", /is absolute/],
    ["C:\\Windows\\win.ini", /is absolute/],
    ["~/.ssh/id_rsa", /is absolute/],
    ["notes/todo.md\0.txt", /NUL byte/],
    ["leak.txt", /leads outside the root/],
    ["escape/secret.txt", /leads outside the root/],
  ])("read %j", async (path, message) => {
    const error = await call(read, { path }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toMatch(message);
  });

  it("refuses listing a symlinked directory outside the root", async () => {
    await expect(call(list, { path: "escape" })).rejects.toThrow(/leads outside the root/);
    await expect(call(list, { path: ".." })).rejects.toThrow(/contains "\.\."/);
  });

  it.each([
    ["escape/planted.txt"],
    ["escape/deeper/planted.txt"],
    ["leak.txt"],
    ["dangling.txt"],
    ["../planted.txt"],
    ["<outside>/planted.txt"],
  ])("write %j", async (given) => {
    const path = given.replace("<outside>", outside);
    await expect(call(write, { path, content: "pwned" })).rejects.toThrow(ToolError);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET");
    expect(() => readFileSync(join(outside, "planted.txt"))).toThrow();
    expect(() => readFileSync(join(outside, "nothing-yet.txt"))).toThrow();
  });

  it("random paths never read or write outside the root", async () => {
    const segment = fc.constantFrom(
      "..",
      ".",
      "escape",
      "leak.txt",
      "notes",
      "x",
      "",
      "~",
      "/",
      "\\",
      "\0",
      "%2e%2e",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 6 }),
        fc.constantFrom("/", "\\"),
        async (parts, sep) => {
          const path = parts.join(sep);
          const result = await call(read, { path }).then(
            (text) => ({ ok: true as const, text }),
            (error: unknown) => ({ ok: false as const, error }),
          );
          if (result.ok) expect(result.text).not.toContain("TOP SECRET");
          else expect(result.error).toBeInstanceOf(ToolError);
          await call(write, { path: `${path}${sep}w.txt`, content: "w" }).catch(() => undefined);
          expect(() => readFileSync(join(outside, "w.txt"))).toThrow();
          expect(() => readFileSync(join(base, "w.txt"))).toThrow();
        },
      ),
      { numRuns: 300 },
    );
  });
});
