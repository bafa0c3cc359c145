import { request } from "node:http";
import { join } from "node:path";
import { startViewer, ViewerNotBuiltError, type ViewerServer } from "glassloop/trace";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir, tracedCalculatorRun } from "../helpers/traced-run.js";

let viewer: ViewerServer | undefined;
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
});

function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("trace viewer server", () => {
  it("listens on 127.0.0.1 on a free port and serves the page, the run list and each run", async () => {
    const dir = tempDir();
    const { result } = await tracedCalculatorRun(dir);
    viewer = await startViewer({ dir });
    expect(viewer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(viewer.port).toBeGreaterThan(0);
    const page = await get(viewer.url);
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.headers["content-security-policy"]).toContain("default-src 'self'");
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect((await get(viewer.url + script)).status).toBe(200);
    const list = JSON.parse((await get(`${viewer.url}api/runs`)).body);
    expect(list.runs).toHaveLength(1);
    expect(list.runs[0]).toMatchObject({
      runId: result.runId,
      status: "ok",
      steps: 3,
      inputTokens: 480,
      outputTokens: 38,
    });
    const run = JSON.parse((await get(`${viewer.url}api/runs/${result.runId}`)).body);
    expect(run.steps.map((s: { step: number }) => s.step)).toEqual([1, 2, 3]);
    expect(run.file).toBe(join(dir, `${result.runId}.jsonl`));
    expect(viewer.runUrl(result.runId)).toBe(`${viewer.url}#/run/${result.runId}`);
  });

  it("sees runs written after it started (files are read per request)", async () => {
    const dir = tempDir();
    viewer = await startViewer({ dir });
    expect(JSON.parse((await get(`${viewer.url}api/runs`)).body).runs).toEqual([]);
    await tracedCalculatorRun(dir);
    expect(JSON.parse((await get(`${viewer.url}api/runs`)).body).runs).toHaveLength(1);
  });

  it("refuses foreign Host headers, writes, path traversal and unknown runs", async () => {
    const dir = tempDir();
    viewer = await startViewer({ dir });
    expect((await get(viewer.url, { host: "evil.example:80" })).status).toBe(421);
    expect((await get(`${viewer.url}..%2f..%2f..%2fetc%2fpasswd`)).status).toBe(404);
    expect((await get(`${viewer.url}assets/..%2f..%2f..%2fpackage.json`)).status).toBe(404);
    expect((await get(`${viewer.url}api/runs/run_missing`)).status).toBe(404);
    const post = await new Promise<number>((resolve, reject) => {
      const req = request(`${viewer?.url}api/runs`, { method: "POST" }, (res) =>
        resolve(res.statusCode ?? 0),
      );
      req.on("error", reject);
      req.end();
    });
    expect(post).toBe(405);
  });

  it("says how to build the page when it is missing", async () => {
    await expect(startViewer({ assetsDir: tempDir() })).rejects.toThrow(ViewerNotBuiltError);
    await expect(startViewer({ assetsDir: tempDir() })).rejects.toThrow(/npm run build:viewer/);
  });
});
