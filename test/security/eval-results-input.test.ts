/**
 * Attack: one malformed `result.json` in the evals folder (valid JSON, the right format tag, but
 * no summary, or a case without trials) made the viewer's run and eval lists answer 500. Each
 * result is input like any other: a broken one is skipped with a note, the good ones listed.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startViewer, type ViewerServer } from "glassloop/trace";
import { afterEach, describe, expect, it } from "vitest";
import { listResults } from "../../src/evals/result-file.js";

let viewer: ViewerServer | undefined;
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
});

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

const good = {
  format: "glassloop-eval",
  version: 1,
  id: "ev_good",
  name: "good",
  startedAt: 2,
  summary: { passRate: { value: 1 }, trials: 1 },
  cases: [{ id: "c1", trials: [{}] }],
};

function evalsFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), "glassloop-evals-"));
  const put = (name: string, value: unknown) => {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, "result.json"), typeof value === "string" ? value : JSON.stringify(value));
  };
  put("good", good);
  put("no-summary", { format: "glassloop-eval", version: 1, id: "ev_x", name: "x", startedAt: 1, cases: [] });
  put("no-trials", { ...good, id: "ev_y", cases: [{ id: "c1" }] });
  put("not-json", "{ half");
  return dir;
}

describe("malformed result.json files in the evals folder", () => {
  it("the viewer's run and eval lists answer 200 with the good eval, the broken ones skipped with a note", async () => {
    const evalDir = evalsFolder();
    viewer = await startViewer({ dir: mkdtempSync(join(tmpdir(), "glassloop-traces-")), evalDir });
    const runs = await get(`${viewer.url}api/runs`);
    expect(runs.status).toBe(200);
    const evals = await get(`${viewer.url}api/evals`);
    expect(evals.status).toBe(200);
    const body = JSON.parse(evals.body) as {
      evals: { id: string }[];
      skipped: { path: string; reason: string }[];
    };
    expect(body.evals.map((e) => e.id)).toEqual(["ev_good"]);
    const reasons = body.skipped.map((s) => s.reason);
    expect(reasons).toHaveLength(3);
    expect(reasons).toContain("not listed: a case without a list of trials");
    expect(reasons).toContain("not listed: no summary");
    expect(reasons.some((r) => /^not listed: .*not JSON/.test(r))).toBe(true);
  });

  it("listResults names each skipped file and why", () => {
    const { evals, skipped } = listResults(evalsFolder());
    expect(evals.map((e) => e.id)).toEqual(["ev_good"]);
    expect(skipped).toHaveLength(3);
    for (const s of skipped) expect(s.path).toMatch(/result\.json$/);
  });
});
