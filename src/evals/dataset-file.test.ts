import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dataset } from "./dataset.js";
import { DatasetError, loadDataset } from "./dataset-file.js";

const dir = mkdtempSync(join(tmpdir(), "glassloop-datasets-"));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function problem(path: string): DatasetError {
  try {
    loadDataset(path);
  } catch (error) {
    if (error instanceof DatasetError) return error;
    throw error;
  }
  throw new Error(`${path} loaded without an error`);
}

describe("dataset files", () => {
  it("reads JSONL and YAML cases, with ids by position where none is given", () => {
    const jsonl = loadDataset(
      file(
        "math.jsonl",
        '{"id":"mul","input":"17 * 23?","expected":391}\n\n{"input":"2 + 2?","expected":4,"limits":{"maxSteps":3}}\n',
      ),
    );
    expect(jsonl.name).toBe("math");
    expect(jsonl.cases.map((c) => c.id)).toEqual(["mul", "case-2"]);
    expect(jsonl.cases[1]?.limits).toEqual({ maxSteps: 3 });
    const yaml = loadDataset(
      file(
        "capitals.yaml",
        "name: capitals\ncases:\n  - id: fr\n    input: Capital of France?\n    expected: Paris\n    metadata: { region: europe }\n  - input: Capital of Japan?\n",
      ),
    );
    expect(yaml.name).toBe("capitals");
    expect(yaml.cases).toEqual([
      { id: "fr", input: "Capital of France?", expected: "Paris", metadata: { region: "europe" } },
      { id: "case-2", input: "Capital of Japan?" },
    ]);
    expect(loadDataset(file("list.yml", "- input: one\n- input: two\n")).cases).toHaveLength(2);
  });

  it("a bad JSONL line names the file, the line and the field", () => {
    const path = file("bad.jsonl", '{"input":"ok"}\n{"input":"ok too"}\n{"expected":4}\n');
    const e = problem(path);
    expect(e.line).toBe(3);
    expect(e.field).toBe("input");
    expect(e.message).toBe(`${path}:3: input: missing (Invalid input: expected string, received undefined)`);
    expect(e.code).toBe("dataset_invalid");
    expect(problem(file("broken.jsonl", '{"input":"ok"}\n{"input": nope}\n')).message).toMatch(
      /broken\.jsonl:2: not JSON/,
    );
    const wrongType = problem(file("limits.jsonl", '{"input":"a","limits":{"maxSteps":"ten"}}\n'));
    expect(wrongType.field).toBe("limits.maxSteps");
    const unknown = problem(file("typo.jsonl", '{"input":"a","expect":4}\n'));
    expect(unknown.field).toBe("expect");
    expect(unknown.message).toMatch(/unknown field/);
  });

  it("a bad YAML case names the line of the field itself", () => {
    const path = file(
      "bad.yaml",
      "cases:\n  - input: fine\n  - input: fine too\n    limits:\n      maxSteps: -1\n",
    );
    const e = problem(path);
    expect(e.line).toBe(5);
    expect(e.field).toBe("limits.maxSteps");
    const missing = problem(file("missing.yaml", "- input: a\n- expected: 3\n"));
    expect(missing.line).toBe(2);
    expect(missing.field).toBe("input");
    expect(problem(file("syntax.yaml", "cases:\n  - input: [unclosed\n")).message).toMatch(
      /syntax\.yaml:\d+: not YAML/,
    );
    expect(problem(file("scalar.yaml", "just text\n")).message).toMatch(/expected a list of cases/);
  });

  it("duplicate ids, unknown formats and missing files are clear errors", () => {
    const dup = problem(file("dup.jsonl", '{"id":"a","input":"x"}\n{"id":"a","input":"y"}\n'));
    expect(dup.message).toMatch(/dup\.jsonl:2: id: "a" is also the id of case 1/);
    expect(problem(file("cases.csv", "input\n")).message).toMatch(/unknown dataset format ".csv"/);
    expect(problem(join(dir, "nope.jsonl")).message).toMatch(/nope\.jsonl: no such file/);
    expect(() =>
      dataset("ts", [
        { id: "x", input: "a" },
        { id: "x", input: "b" },
      ]),
    ).toThrow(/two cases have the id "x"/);
  });

  it("resolves YAML aliases to what they point at, and refuses aliases that expand past the cap", () => {
    const shared = loadDataset(
      file(
        "aliases.yaml",
        "cases:\n  - id: a\n    input: Add 2 and 3.\n    metadata: &tags { topic: sums, level: 1 }\n  - id: b\n    input: Add 4 and 5.\n    metadata: *tags\n",
      ),
    );
    expect(shared.cases[1]?.metadata).toEqual({ topic: "sums", level: 1 });
    // Nine levels of ten aliases each: a billion strings if expanded; refused, not expanded.
    const levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++)
      levels.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(", ")}]`);
    const bomb = problem(
      file("bomb.yaml", `${levels.join("\n")}\ncases:\n  - input: hi\n    metadata: { x: *a8 }\n`),
    );
    expect(bomb.message).toMatch(/bomb\.yaml: its YAML aliases expand too far/);
  });
});
