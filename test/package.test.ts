import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

// What users get from `npm run build`: the bundles behind package.json's "exports" and "bin",
// loaded by plain node (no tsx, no vitest aliases).
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const node = (args: string[]) =>
  spawnSync(process.execPath, args, { cwd: ROOT, encoding: "utf8", timeout: 60_000 });

describe("the built package", () => {
  beforeAll(() => {
    const build = spawnSync(process.execPath, ["node_modules/tsdown/dist/run.mjs"], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(build.status, build.stderr + build.stdout).toBe(0);
  }, 150_000);

  it("exposes every entry through its export name", () => {
    const script = `
      const g = await import("glassloop");
      const t = await import("glassloop/testing");
      const m = await import("glassloop/mcp");
      const o = await import("glassloop/otel");
      const agent = new g.Agent({ model: new t.ScriptedModel([{ text: "hi" }]) });
      const result = await agent.run("hello");
      console.log(JSON.stringify({ output: result.output, mcp: typeof m.McpClient, otel: Object.keys(o).length > 0 }));
    `;
    const run = node(["--input-type=module", "-e", script]);
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ output: "hi", mcp: "function", otel: true });
  });

  it("runs the bin: version and the offline demo", () => {
    const version = node(["dist/cli/main.mjs", "--version"]);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const demo = node(["dist/cli/main.mjs", "demo"]);
    expect(demo.status, demo.stderr).toBe(0);
    expect(demo.stdout).toContain("420");
  });
});
