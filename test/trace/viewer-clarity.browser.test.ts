/**
 * The viewer as a new user reads it: labels that say what they are, a budget
 * chart with axes, units and a legend (also for a one-step run), a legend for the timeline's
 * colours, a header that holds at 420 px, error codes in the run list, run ids on one line.
 * Each fixed view is saved as a screenshot in test-artifacts/.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Agent, tool } from "glassloop";
import { ScriptedModel } from "glassloop/testing";
import { ReplayModel, startViewer, TraceWriter, type ViewerServer } from "glassloop/trace";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { SCENARIOS } from "../../src/cli/demo/scenarios.js";
import { describeBrowser, openBrowser } from "../helpers/browser.js";
import { ROOT } from "../helpers/packed.js";
import { tempDir, tracedCalculatorRun } from "../helpers/traced-run.js";

// The page's globals, as far as the callbacks below (run inside the browser) use them; the test's
// own compilation has no DOM library.
declare const document: { documentElement: { scrollWidth: number } };
declare function getComputedStyle(element: unknown): { backgroundColor: string; lineHeight: string };

const ARTIFACTS = join(import.meta.dirname, "../../test-artifacts");
const LONG_MODEL = "openrouter:qwen/qwen2.5_coder_32b_instruct_awq_int4_gguf_q8_0";

async function oneStepRun(dir: string): Promise<string> {
  const writer = new TraceWriter({ dir });
  const agent = new Agent({
    model: new ScriptedModel([{ text: "Hello.", usage: { inputTokens: 300, outputTokens: 20 } }], {
      id: LONG_MODEL,
    }),
    limits: { maxTokens: 1_000 },
  });
  return (await agent.run("Say hello", { onEvent: writer.onEvent })).runId;
}

async function failedRun(dir: string): Promise<string> {
  const writer = new TraceWriter({ dir });
  const lookup = tool({
    name: "lookup",
    description: "Looks up.",
    input: z.object({}),
    run: () => "found",
  });
  const agent = new Agent({
    model: new ScriptedModel([{ toolCalls: [{ name: "lookup", args: {} }] }, { error: "upstream down" }]),
    tools: [lookup],
  });
  const error = await agent.run("Look it up", { onEvent: writer.onEvent }).catch((e: unknown) => e);
  return (error as { runId: string }).runId;
}

/** A worked example of the demo, replayed from its recording (which holds no token counts). */
async function replayedRun(dir: string, name: string): Promise<string> {
  const scenario = SCENARIOS.find((s) => s.name === name);
  if (!scenario) throw new Error(`no demo example ${name}`);
  const model = ReplayModel.fromFile(join(ROOT, "recordings", `${name}.jsonl`));
  const writer = new TraceWriter({ dir });
  return (await scenario.agent(model).run(scenario.input, { onEvent: writer.onEvent })).runId;
}

async function shot(page: Page, name: string, selector?: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, name);
  if (selector) await page.locator(selector).first().screenshot({ path });
  else await page.screenshot({ path, fullPage: true });
}

describeBrowser("the viewer says what it shows", () => {
  let viewer: ViewerServer;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let calcRun: string;
  let oneStep: string;
  let failed: string;
  let replayedCalc: string;
  let replayedHello: string;

  beforeAll(async () => {
    const dir = tempDir();
    calcRun = (await tracedCalculatorRun(dir)).result.runId;
    oneStep = await oneStepRun(dir);
    failed = await failedRun(dir);
    replayedCalc = await replayedRun(dir, "calculator");
    replayedHello = await replayedRun(dir, "hello");
    viewer = await startViewer({ dir });
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await viewer?.close();
  });

  it('labels the finish reason "finish reason", not "finish <reason>"', async () => {
    const page = await browser.context.newPage();
    await page.goto(viewer.runUrl(calcRun));
    await page.waitForSelector("[data-testid=step-detail][data-step='1']");
    const facts = await page.locator("[data-testid=response] .facts-line").textContent();
    expect(facts).toContain("finish reason tool_calls");
    expect(await page.locator("[data-testid=finish-reason]").textContent()).toBe("tool_calls");
    await shot(page, "viewer-finish-reason.png", "[data-testid=response]");
    await page.close();
  });

  it("the budget chart has axes with units and a legend, and draws a line for a one-step run", async () => {
    const page = await browser.context.newPage();
    await page.goto(viewer.runUrl(oneStep));
    await page.waitForSelector("[data-testid=budget] svg");
    const chart = page.locator("[data-testid=budget] svg");
    expect(await chart.locator("[data-testid=x-axis-label]").textContent()).toBe("step");
    expect(await chart.locator("[data-testid=y-axis-label]").textContent()).toBe("tokens (cumulative)");
    // Ticks on both axes: 0 and the top of the scale on y, the start and each step on x.
    expect(await chart.locator(".y-tick").allTextContents()).toEqual(["0", "1,000"]);
    expect(await chart.locator(".tick").allTextContents()).toEqual(["0", "1"]);
    const legend = await page.locator("[data-testid=budget-legend]").textContent();
    expect(legend).toContain("tokens used");
    expect(legend).toContain("maxTokens");
    // One step is a line from the start (0 tokens) to the step, not a lone dot.
    const d = (await chart.locator("path.line").getAttribute("d")) ?? "";
    expect(d.match(/[ML]/g)).toEqual(["M", "L"]);
    await shot(page, "viewer-budget-one-step.png", "[data-testid=budget]");

    await page.goto(viewer.runUrl(calcRun));
    // Wait for this run's chart (its last tick), not for any chart: under load the previous run's
    // page can still be on screen when the selector is first checked.
    await page.locator("[data-testid=budget] svg .tick").nth(3).waitFor();
    expect(await page.locator("[data-testid=budget] svg .tick").allTextContents()).toEqual([
      "0",
      "1",
      "2",
      "3",
    ]);
    await shot(page, "viewer-budget.png", "[data-testid=budget]");
    await page.close();
  });

  it("the budget chart of a replayed run without token counts shows what it did use: its tool calls, else its time, and says why", async () => {
    const page = await browser.context.newPage();
    await page.goto(viewer.runUrl(replayedCalc));
    await page.locator("[data-testid=budget] svg .tick").nth(3).waitFor();
    const chart = page.locator("[data-testid=budget] svg");
    expect(await chart.locator("[data-testid=y-axis-label]").textContent()).toBe("tool calls (cumulative)");
    // add, multiply, finish: one call a step, so the line climbs 0, 1, 2, 3 (not a flat line at 0).
    const d = (await chart.locator("path.line").getAttribute("d")) ?? "";
    const heights = [...d.matchAll(/[ML][\d.]+,([\d.]+)/g)].map((m) => Number(m[1]));
    expect(heights).toHaveLength(4);
    for (let i = 1; i < heights.length; i++) expect(heights[i]!).toBeLessThan(heights[i - 1]!);
    expect(await chart.locator(".y-tick").allTextContents()).not.toEqual(["0", "1"]);
    const legend = (await page.locator("[data-testid=budget-legend]").textContent()) ?? "";
    expect(legend).toContain("tool calls, after each step");
    expect(legend).toContain(
      "replayed answers carry the token counts of their recording, and this one holds none",
    );
    await shot(page, "viewer-budget-replayed.png", "[data-testid=budget]");

    // A greeting with no tool: its time, in ms, from the start.
    await page.goto(viewer.runUrl(replayedHello));
    await page.locator("[data-testid=y-axis-label]", { hasText: "time (ms)" }).waitFor();
    const hello = (await page.locator("[data-testid=budget-legend]").textContent()) ?? "";
    expect(hello).toContain("time since the run started");
    await page.close();
  });

  it("the timeline has a legend for its colours", async () => {
    const page = await browser.context.newPage();
    await page.goto(viewer.runUrl(failed));
    await page.waitForSelector("[data-testid=timeline]");
    const legend = page.locator("[data-testid=timeline-legend]");
    const entries = await legend.locator("li").allTextContents();
    expect(entries).toEqual(["model call", "tool calls", "step with an error"]);
    // Each swatch has the colour of what it names.
    const colour = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await colour("[data-testid=timeline-legend] .swatch.seg-model")).toBe(
      await colour("[data-testid=timeline] .seg-model"),
    );
    expect(await colour("[data-testid=timeline-legend] .swatch.seg-tool")).toBe(
      await colour("[data-testid=timeline] .seg-tool"),
    );
    await shot(page, "viewer-timeline-legend.png", ".run-grid");
    await page.close();
  });

  it("at 420 px the model name does not overlap the steps column", async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 420, height: 900 });
    await page.goto(viewer.runUrl(oneStep));
    await page.waitForSelector(".run-header .facts");
    const box = async (label: string) => {
      const fact = page.locator(".run-header .fact", { has: page.locator(`dt:text-is("${label}")`) });
      const b = await fact.locator("dd").boundingBox();
      if (!b) throw new Error(`no ${label} fact`);
      return b;
    };
    const model = await box("model");
    const steps = await box("steps");
    const overlap =
      model.x < steps.x + steps.width &&
      steps.x < model.x + model.width &&
      model.y < steps.y + steps.height &&
      steps.y < model.y + model.height;
    expect(overlap).toBe(false);
    // Nothing sticks out of the page sideways either.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
    await shot(page, "viewer-420px.png");
    await page.close();
  });

  it("failed runs in the list show their error code; run ids stay on one line", async () => {
    const page = await browser.context.newPage();
    await page.goto(viewer.url);
    const row = page.locator(`tr[data-run-id="${failed}"]`);
    await row.waitFor();
    expect(await row.locator("[data-testid=error-code]").textContent()).toBe("model_error");
    // An ok run has no code to show.
    expect(await page.locator(`tr[data-run-id="${calcRun}"] [data-testid=error-code]`).count()).toBe(0);
    for (const width of [1440, 900]) {
      await page.setViewportSize({ width, height: 800 });
      const link = row.locator("a.run-id");
      const lines = await link.evaluate((el) => {
        const style = getComputedStyle(el);
        return Math.round(el.getBoundingClientRect().height / Number.parseFloat(style.lineHeight));
      });
      expect(lines).toBe(1);
      // The whole id is still there to read and to copy.
      expect(await link.getAttribute("title")).toBe(failed);
    }
    await page.setViewportSize({ width: 1440, height: 800 });
    // A long model name wraps in its column: the table fits the window.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1440);
    await shot(page, "viewer-runs-list.png");
    await page.close();
  });

  it("loaded nothing from anywhere but the local server", () => {
    expect(browser.offsite).toEqual([]);
  });
});
