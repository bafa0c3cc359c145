// A hostile URL and hostile entries in the traces folder, against the viewer.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { startViewer, type ViewerServer } from "glassloop/trace";
import { afterEach, describe, expect, it } from "vitest";
import { tempDir, tracedCalculatorRun } from "../helpers/traced-run.js";

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

describe("trace viewer under attack", () => {
  it("answers bad percent-encoding with 400, not 500", async () => {
    viewer = await startViewer({ dir: tempDir() });
    for (const path of ["%E0%A4%A", "api/runs/%ZZ", "assets/%"]) {
      const reply = await get(`${viewer.url}${path}`);
      expect(reply.status, path).toBe(400);
      expect(JSON.parse(reply.body)).toEqual({ error: "bad percent-encoding in the path" });
    }
  });

  it("serves only regular trace files inside the folder and never echoes a file's bytes", async () => {
    const dir = tempDir();
    const { result: inside } = await tracedCalculatorRun(dir);
    // A real trace outside the folder, reachable only through a symlink in it.
    const elsewhere = tempDir();
    const { result: outside } = await tracedCalculatorRun(elsewhere);
    const outsideFile = readdirSync(elsewhere)[0] as string;
    symlinkSync(join(elsewhere, outsideFile), join(dir, "outside.jsonl"));
    // Secrets behind symlinks: not JSON (the parser's message would quote it), and JSON.
    const secrets = tempDir();
    writeFileSync(join(secrets, "passwd"), "root:x:0:0:root:/root:/bin/bash\n");
    writeFileSync(join(secrets, "token.json"), '{"type":"SECRET-TOKEN-1234","runId":7}\n');
    symlinkSync(join(secrets, "passwd"), join(dir, "passwd.jsonl"));
    symlinkSync(join(secrets, "token.json"), join(dir, "token.jsonl"));
    // A regular file in the folder that is no trace: reported, without its content.
    copyFileSync(join(secrets, "passwd"), join(dir, "copied.jsonl"));
    execFileSync("mkfifo", [join(dir, "stuck.jsonl")]);
    mkdirSync(join(dir, "folder.jsonl"));
    viewer = await startViewer({ dir });

    const list = await get(`${viewer.url}api/runs`);
    expect(list.status).toBe(200);
    const { runs, skipped } = JSON.parse(list.body) as { runs: { runId: string }[]; skipped: string[] };
    expect(runs.map((r) => r.runId)).toEqual([inside.runId]);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]).toMatch(/copied\.jsonl holds no glassloop trace events \(line 1: not JSON/);
    expect(list.body).not.toMatch(/root:x|SECRET-TOKEN/);

    expect((await get(`${viewer.url}api/runs/${inside.runId}`)).status).toBe(200);
    const out = await get(`${viewer.url}api/runs/${outside.runId}`);
    expect(out.status).toBe(404);
    expect(out.body).not.toContain("root:x");
  });
});
