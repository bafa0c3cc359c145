import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Agent, type Model, ToolError, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { startViewer, TraceWriter, type ViewerServer } from "glassloop/trace";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { describeBrowser, openBrowser } from "../helpers/browser.js";
import { failedOverTrace } from "../helpers/distributed-trace.js";
import { tempDir, tracedCalculatorRun } from "../helpers/traced-run.js";

const ARTIFACTS = join(import.meta.dirname, "../../test-artifacts");

/** A run that fails: a tool error, then a budget stop. */
async function failingRun(dir: string): Promise<string> {
  const writer = new TraceWriter({ dir });
  const agent = new Agent({
    model: new ScriptedModel([
      {
        toolCalls: [{ name: "lookup", args: { city: "Atlantis" } }],
        usage: { inputTokens: 50, outputTokens: 10 },
      },
      {
        toolCalls: [{ name: "lookup", args: { city: "Paris" } }],
        usage: { inputTokens: 90, outputTokens: 10 },
      },
    ]),
    tools: [
      tool({
        name: "lookup",
        description: "Looks up a city.",
        input: z.object({ city: z.string() }),
        run: ({ city }) => {
          if (city === "Atlantis") throw new ToolError("No such city: Atlantis");
          return { city, population: 2_100_000 };
        },
      }),
    ],
    limits: { maxSteps: 2 },
  });
  const error = await agent
    .run("Population of Atlantis?", { onEvent: writer.onEvent })
    .catch((e: unknown) => e);
  return (error as { runId: string }).runId;
}

describeBrowser("trace viewer in a real browser", () => {
  let viewer: ViewerServer;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let okRun: string;
  let okFile: string;
  let badRun: string;
  let liveDir: string;
  let liveViewer: ViewerServer;

  beforeAll(async () => {
    const dir = tempDir();
    const ok = await tracedCalculatorRun(dir);
    okRun = ok.result.runId;
    okFile = ok.file;
    badRun = await failingRun(dir);
    viewer = await startViewer({ dir });
    liveDir = tempDir();
    liveViewer = await startViewer({ dir: liveDir });
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await viewer?.close();
    await liveViewer?.close();
  });

  it("lists the runs and filters them by text and status", async () => {
    const page = await browser.context.newPage();
    await page.goto(viewer.url);
    const rows = page.locator("[data-testid=runs-table] tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    await expect
      .poll(() => page.locator(`tr[data-run-id="${badRun}"] .badge`).textContent())
      .toBe("budget_exceeded");
    await page.fill("[data-testid=run-filter]", "Atlantis");
    await expect.poll(() => rows.count()).toBe(1);
    await page.fill("[data-testid=run-filter]", "");
    await page.selectOption("[data-testid=status-filter]", "ok");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute("data-run-id")).toBe(okRun);
    await page.close();
  });

  it("opens a run, clicks a step, shows its exact request JSON and the diff from the previous one", async () => {
    const page = await browser.context.newPage();
    await page.goto(viewer.url);
    await page.click(`tr[data-run-id="${okRun}"] a`);
    await page.waitForSelector("[data-testid=timeline]");
    expect(await page.locator("[data-testid=timeline] li").count()).toBe(3);
    await page.click("[data-testid=step-2]");
    await page.waitForSelector("[data-testid=step-detail][data-step='2']");

    // The request shown is the recorded body, byte for byte as pretty JSON.
    const recorded = readFileSync(okFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === "model_request");
    const shown = await page.locator("[data-testid=request-json]").textContent();
    expect(shown).toBe(JSON.stringify(recorded[1].body, null, 2));

    // The diff names what step 1 added to the prompt: the assistant's call and the tool result.
    const changes = page.locator("[data-testid=request-diff] .change");
    expect(await changes.count()).toBe(2);
    expect(await changes.nth(0).textContent()).toContain("messages[1]");
    expect(await changes.nth(0).getAttribute("data-kind")).toBe("added");
    expect(await changes.nth(1).textContent()).toContain("messages[2]");
    expect(await changes.nth(1).textContent()).toContain("(tool: 210)");
    expect(await page.locator("[data-testid=request-diff]").textContent()).toContain(
      "unchanged: model, instructions, tools",
    );
    await page.click("[data-testid=line-diff-tab]");
    const added = await page.locator("[data-testid=line-diff] .ld.add").allTextContents();
    expect(added.some((l) => l.includes('"content": "210"'))).toBe(true);
    expect(await page.locator("[data-testid=line-diff] .ld.del").count()).toBe(0);

    expect(await page.locator("[data-testid=response]").textContent()).toContain("160 in / 18 out tokens");
    expect(await page.locator("[data-testid=response]").textContent()).toMatch(/cost \$0\.0000\d\d/);
    expect(await page.locator("[data-testid=budget]").textContent()).toMatch(
      /step 2: 316 tokens.*tokens518 \/ 5,000/,
    );
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "viewer-step.png"), fullPage: true });
    await page.close();
  });

  it("highlights errors where they happened", async () => {
    const page = await browser.context.newPage();
    await page.goto(viewer.runUrl(badRun));
    await page.waitForSelector("[data-testid=run-error]");
    expect(await page.locator("[data-testid=run-error]").textContent()).toContain("budget_exceeded");
    expect(await page.locator("[data-testid=timeline] li.bad").count()).toBeGreaterThan(0);
    const tool = page.locator("[data-testid=step-detail] .tool.bad");
    expect(await tool.textContent()).toContain("No such city: Atlantis");
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "viewer-error.png"), fullPage: true });
    await page.close();
  });

  it("follows a run that is still being written", async () => {
    const lines = readFileSync(okFile, "utf8").trim().split("\n");
    const firstStepEnd = lines.findIndex((l) => l.includes('"type":"step_end"'));
    const growing = join(liveDir, "growing.jsonl");
    writeFileSync(growing, `${lines.slice(0, firstStepEnd + 1).join("\n")}\n`);
    const runId = JSON.parse(lines[0] as string).runId as string;
    const page = await browser.context.newPage();
    await page.goto(liveViewer.runUrl(runId));
    await page.waitForSelector("[data-testid=timeline]");
    expect(await page.locator("[data-testid=timeline] li").count()).toBe(1);
    expect(await page.locator(".run-header .badge").textContent()).toBe("incomplete");
    appendFileSync(growing, `${lines.slice(firstStepEnd + 1).join("\n")}\n`);
    await expect.poll(() => page.locator("[data-testid=timeline] li").count(), { timeout: 8000 }).toBe(3);
    await expect.poll(() => page.locator(".run-header .badge").textContent()).toBe("ok");
    await page.close();
  });

  it("labels a run and its nested runs with their agents' names", async () => {
    const dir = tempDir();
    const writer = new TraceWriter({ dir });
    const researcher = new Agent({ name: "researcher", model: new ScriptedModel([{ text: "facts" }]) });
    const writerAgent = new Agent({
      name: "writer",
      model: new ScriptedModel([
        { toolCalls: [{ id: "r1", name: "research", args: { input: "q" } }] },
        { text: "ok" },
      ]),
      tools: [researcher.asTool({ name: "research", description: "Finds facts." })],
    });
    const result = await writerAgent.run("Write", { onEvent: writer.onEvent });
    const nested = await startViewer({ dir });
    try {
      const page = await browser.context.newPage();
      await page.goto(nested.runUrl(result.runId));
      await page.waitForSelector("[data-testid=run-agent]");
      expect(await page.locator("[data-testid=run-agent] dd").textContent()).toBe("writer");
      await page.click("[data-testid=step-1]");
      await page.waitForSelector("[data-testid=sub-run]");
      expect(await page.locator("[data-testid=sub-run]").textContent()).toMatch(/^sub-run researcher run_/);
      await page.close();
    } finally {
      await nested.close();
    }
  });

  it("shows a step's reasoning collapsed and its input split into fresh, cached and written to cache", async () => {
    const dir = tempDir();
    const writer = new TraceWriter({ dir });
    const model: Model = {
      id: "test:reasoner",
      async generate(_request, observer) {
        observer.onRequest({ body: { probe: true }, attempt: 1 });
        return {
          text: "42",
          toolCalls: [],
          finishReason: "stop",
          usage: {
            inputTokens: 1000,
            cachedInputTokens: 600,
            cacheWriteInputTokens: 300,
            outputTokens: 50,
            reasoningTokens: 40,
          },
          reasoning: [
            { type: "reasoning", provider: "test", text: "Six times seven.", signature: "sig-123" },
          ],
        };
      },
    };
    const result = await new Agent({ model }).run("Answer?", { onEvent: writer.onEvent });
    const own = await startViewer({ dir });
    try {
      const page = await browser.context.newPage();
      await page.goto(own.runUrl(result.runId));
      await page.click("[data-testid=step-1]");
      await page.waitForSelector("[data-testid=reasoning]");
      expect(await page.locator("[data-testid=tokens]").textContent()).toContain(
        "1,000 in (100 fresh + 600 cached + 300 written to cache) / 50 out tokens (40 reasoning)",
      );
      // Collapsed by default: the summary shows, the thinking only once opened.
      expect(await page.locator("[data-testid=reasoning]").getAttribute("open")).toBeNull();
      expect(await page.locator("[data-testid=reasoning] summary").textContent()).toBe("reasoning (1 part)");
      await page.click("[data-testid=reasoning] summary");
      expect(await page.locator("[data-testid=reasoning] pre").textContent()).toContain("Six times seven.");
      await page.close();
    } finally {
      await own.close();
    }
  });

  it("shows which worker ran each step of a distributed run, and who ran each call of a step that failed over", async () => {
    const { dir, runId } = await failedOverTrace();
    const own = await startViewer({ dir });
    try {
      const page = await browser.context.newPage();
      await page.goto(own.runUrl(runId));
      await page.waitForSelector("[data-testid=run-workers]");
      expect(await page.locator("[data-testid=run-workers] dd").textContent()).toBe("w1, w2");
      expect(await page.locator("[data-testid=step-1-worker]").textContent()).toBe("w1");
      expect(await page.locator("[data-testid=step-2-worker]").textContent()).toBe("w1 → w2");
      expect(await page.locator("[data-testid=step-3-worker]").textContent()).toBe("w2");
      await page.click("[data-testid=step-1]");
      await expect.poll(() => page.locator("[data-testid=step-worker]").textContent()).toBe("worker w1");
      // One worker ran the step: its calls carry no badge of their own.
      expect(await page.locator("[data-testid=tool-worker]").count()).toBe(0);
      await page.click("[data-testid=step-2]");
      await expect
        .poll(() => page.locator("[data-testid=step-worker]").textContent())
        .toBe("workers w1 → w2");
      expect(await page.locator("[data-testid=tool-worker]").textContent()).toBe("on w2");
      await page.close();
    } finally {
      await own.close();
    }
  });

  it("loaded nothing from anywhere but the local server", () => {
    expect(browser.offsite).toEqual([]);
  });
});
