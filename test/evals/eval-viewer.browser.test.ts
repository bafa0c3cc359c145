import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Agent, type Model, tool } from "glassloop";
import { dataset, type EvalResult, evaluate, exact, toolsCalled } from "glassloop/evals";
import { FunctionModel } from "glassloop/testing";
import { startViewer, type ViewerServer } from "glassloop/trace";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { describeBrowser, openBrowser } from "../helpers/browser.js";
import { tempDir } from "../helpers/traced-run.js";

const ARTIFACTS = join(import.meta.dirname, "../../test-artifacts");

const lookup = tool({
  name: "lookup_capital",
  description: "Looks up the capital city of a country.",
  input: z.object({ country: z.string() }),
  run: ({ country }) => ({ France: "Paris", Japan: "Tokyo", Peru: "Lima" })[country] ?? "unknown",
});

/** An eval of the capitals agent; `careful` changes its instructions and fixes Peru. */
function capitalsEval(evalDir: string, careful: boolean): Promise<EvalResult> {
  const model = new FunctionModel(
    (r) => {
      const question = r.messages.find((m) => m.role === "user");
      const country = /of (\w+)/.exec(question?.role === "user" ? question.content : "")?.[1] ?? "";
      const result = r.messages.find((m) => m.role === "tool");
      if (!result)
        return {
          toolCalls: [{ name: "lookup_capital", args: { country } }],
          usage: { inputTokens: 40, outputTokens: 8 },
        };
      const answer = country === "Peru" && !careful ? "Cusco" : result.role === "tool" ? result.content : "";
      return { text: answer, usage: { inputTokens: 60, outputTokens: 3 } };
    },
    { price: { inputPerMTok: 0.15, outputPerMTok: 0.6 }, id: "function:capitals" },
  );
  const id = careful ? "eval_careful" : "eval_first";
  return evaluate({
    id,
    name: careful ? "capitals (careful)" : "capitals",
    agent: ({ model: m }) =>
      new Agent({
        instructions: careful
          ? "Answer with the capital only. Check the tool's result."
          : "Answer with the capital.",
        model: m as Model,
        tools: [lookup],
      }),
    model,
    dataset: dataset("capitals", [
      { id: "france", input: "Capital of France?", expected: "Paris" },
      { id: "japan", input: "Capital of Japan?", expected: "Tokyo" },
      { id: "peru", input: "Capital of Peru?", expected: "Lima" },
    ]),
    scorers: [exact(), toolsCalled(["lookup_capital"])],
    repeat: 2,
    outDir: join(evalDir, id),
  });
}

describeBrowser("the viewer's eval pages in a real browser", () => {
  let viewer: ViewerServer;
  let browser: Awaited<ReturnType<typeof openBrowser>>;

  beforeAll(async () => {
    const evalDir = tempDir();
    await capitalsEval(evalDir, false);
    await capitalsEval(evalDir, true);
    viewer = await startViewer({ dir: tempDir(), evalDir });
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await viewer?.close();
  });

  it("lists evals, shows the table with intervals, filters by failing scorer and links each trial's run", async () => {
    const page = await browser.context.newPage();
    await page.goto(viewer.url);
    await page.click("[data-testid=nav-evals]");
    await expect.poll(() => page.locator("[data-testid=evals-table] tbody tr").count()).toBe(2);
    await page.click('tr[data-eval-id="eval_first"] a');
    await page.waitForSelector("[data-testid=eval-table]");
    const rows = page.locator("[data-testid=eval-table] tbody tr");
    expect(await rows.count()).toBe(3);
    expect(await page.locator("[data-testid=eval-summary]").textContent()).toContain(
      "67% [30%, 90%] 95% Wilson, 4/6 trials",
    );
    expect(await page.locator('tr[data-case-id="peru"] td[data-scorer="exact"]').textContent()).toBe("0.00");
    expect(await page.locator('tr[data-case-id="peru"] td[data-scorer="tools"]').textContent()).toBe("1.00");
    await page.selectOption("[data-testid=failing-filter]", "exact");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute("data-case-id")).toBe("peru");
    expect(page.url()).toContain("#/eval/eval_first/failing/exact");
    await page.selectOption("[data-testid=failing-filter]", "tools");
    await expect.poll(() => rows.count()).toBe(0);
    await page.selectOption("[data-testid=failing-filter]", "");
    await expect.poll(() => rows.count()).toBe(3);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "viewer-eval.png"), fullPage: true });
    // Each trial links to its run's timeline.
    await page.click('tr[data-case-id="peru"] [data-testid=trial-run] >> nth=0');
    await page.waitForSelector("[data-testid=timeline]");
    expect(await page.locator(".run-header .input").textContent()).toContain("Capital of Peru?");
    await page.close();
  });

  it("shows a case side by side in two evals, with what the model saw differently", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${viewer.url}#/eval/eval_first`);
    await page.waitForSelector("[data-testid=compare-with]");
    await page.selectOption("[data-testid=compare-with]", "eval_careful");
    await page.click('tr[data-case-id="peru"] a >> nth=0');
    await page.waitForSelector("[data-testid=seen-differently] [data-testid=request-diff]");
    expect(page.url()).toContain("#/eval/eval_first/case/peru/vs/eval_careful");
    const columns = page.locator("[data-testid=side-by-side] > .panel");
    expect(await columns.count()).toBe(2);
    expect(await columns.nth(0).textContent()).toContain('"Cusco" is not "Lima"');
    expect(await columns.nth(1).textContent()).toContain('equals "Lima"');
    const diff = page.locator("[data-testid=seen-differently] [data-testid=request-diff]");
    expect(await diff.textContent()).toContain("instructions");
    expect(await diff.textContent()).toContain("Check the tool's result.");
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "viewer-eval-case.png"), fullPage: true });
    await page.close();
  });

  it("loaded nothing from anywhere but the local server", () => {
    expect(browser.offsite).toEqual([]);
  });
});
