import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeBrowser, openBrowser } from "../helpers/browser.js";
import { type ChatServer, signInAs, startChatServer, TOKENS } from "../helpers/chat-server.js";
import { chatAgents, HOSTILE_TEXT } from "./chat-agents.js";

const ARTIFACTS = join(import.meta.dirname, "../../test-artifacts");

// What the page functions below read in the browser (this project's tests compile without the DOM library).
declare const document: { documentElement: { scrollWidth: number } };
declare const window: { __pwned?: number };

describeBrowser("the chat page glassloop serve serves at /, in a real browser", () => {
  let server: ChatServer;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  const served = chatAgents();

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    server = await startChatServer(served.agents);
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A fresh page signed in as `who`, on a new chat (or the one in `hash`). */
  async function open(who: keyof typeof TOKENS = "alice", hash = ""): Promise<Page> {
    await signInAs(browser.context, server.url, who);
    const page = await browser.context.newPage();
    await page.goto(server.url + hash);
    await page.getByTestId("message-box").waitFor();
    return page;
  }

  async function send(page: Page, text: string): Promise<void> {
    await page.getByTestId("message-box").fill(text);
    await page.getByTestId("message-box").press("Enter");
  }

  const lastAssistant = (page: Page) => page.locator('[data-role="assistant"]').last();
  const status = (page: Page) => page.getByTestId("status").getAttribute("data-status");

  it("streams reasoning, two tool calls and the answer, and a step's glass shows the exact request body that was sent", async () => {
    const page = await open();
    await send(page, "weather in two cities");
    await expect
      .poll(() => lastAssistant(page).getByTestId("assistant-text").textContent())
      .toBe("Oslo is 4 °C and 東京 is 12 °C.");
    await expect.poll(() => status(page)).toBe("ready");
    const tools = lastAssistant(page).getByTestId("tool");
    expect(await tools.evaluateAll((els) => els.map((e) => e.getAttribute("data-state")))).toEqual([
      "output-available",
      "output-available",
    ]);
    await expect
      .poll(() => tools.nth(1).getByTestId("tool-output").textContent())
      .toContain('"city": "東京"');
    expect(await lastAssistant(page).getByTestId("reasoning").textContent()).toContain("Two cities");

    // Step 2's glass: the body the model got, byte for byte as pretty JSON, and what changed since step 1.
    const steps = lastAssistant(page).getByTestId("step");
    await steps.nth(1).getByTestId("glass-toggle").click();
    const request = steps.nth(1).getByTestId("glass-request");
    await request.waitFor();
    const sent = served.model.bodies.find(
      (b) =>
        JSON.stringify(b).includes("weather in two cities") && JSON.stringify(b).includes('"role":"tool"'),
    );
    expect(sent).toBeDefined();
    expect(await request.textContent()).toBe(JSON.stringify(JSON.parse(JSON.stringify(sent)), null, 2));
    const diff = steps.nth(1).getByTestId("request-diff");
    await expect.poll(() => diff.locator(".change.added").count()).toBeGreaterThan(0);
    expect(await diff.textContent()).toContain("messages");
    expect(await steps.nth(1).getByTestId("glass-toggle").getAttribute("aria-expanded")).toBe("true");
    const runId = await lastAssistant(page).getAttribute("data-run-id");
    expect(await lastAssistant(page).getByTestId("trace-link").getAttribute("href")).toBe(
      `trace/#/run/${encodeURIComponent(runId ?? "")}`,
    );
    await page.screenshot({ path: join(ARTIFACTS, "chat-desktop.png"), fullPage: true });
    await page.close();
  });

  it("asks before a tool that needs approval, and the approve button (pressed from the keyboard) resumes that call's run", async () => {
    const page = await open();
    await send(page, "refund order A-1");
    const call = lastAssistant(page).getByTestId("tool");
    await expect.poll(() => call.getAttribute("data-state")).toBe("approval-requested");
    await expect.poll(() => status(page)).toBe("awaiting-approval");
    expect(await call.getByTestId("tool-input").textContent()).toContain('"order": "A-1"');
    await call.getByTestId("approve").focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => call.getAttribute("data-state")).toBe("output-available");
    expect(await call.getByTestId("tool-output").textContent()).toBe("Refunded 5 EUR on A-1.");
    await expect
      .poll(() => lastAssistant(page).getByTestId("assistant-text").allTextContents())
      .toEqual(["Refunding A-1.", "Done: the refund went through."]);
    await expect.poll(() => status(page)).toBe("ready");
    await page.close();
  });

  it("rejecting a call tells the model it was not run", async () => {
    const page = await open();
    await send(page, "refund order A-1 again");
    const call = lastAssistant(page).getByTestId("tool");
    await expect.poll(() => call.getAttribute("data-state")).toBe("approval-requested");
    await call.getByTestId("reject").click();
    await expect.poll(() => call.getAttribute("data-state")).toBe("output-denied");
    await expect.poll(() => status(page)).toBe("ready");
    await page.close();
  });

  it("the stop button ends the run on the server, not only the stream", async () => {
    const page = await open();
    await send(page, "slow 1");
    // The model waits after "alpha beta "; the scrubbed stream holds back the last word until more comes.
    await expect.poll(() => lastAssistant(page).getByTestId("assistant-text").textContent()).toBe("alpha ");
    const runId = await lastAssistant(page).getAttribute("data-run-id");
    await page.getByTestId("stop").click();
    await expect.poll(() => status(page)).toBe("ready");
    await expect
      .poll(async () => (await server.api<{ status: string }>(`api/runs/${runId}`)).status)
      .not.toMatch(/running|awaiting/);
    // A reload finds nothing to resume: the stopped turn stays as it was.
    await page.reload();
    await expect
      .poll(() => lastAssistant(page).getByTestId("assistant-text").textContent())
      .toContain("alpha");
    await expect.poll(() => status(page)).toBe("ready");
    expect(await page.getByTestId("stop").count()).toBe(0);
    await page.close();
  });

  it("a reload mid-answer picks the stream up again: the whole text once, no gap, no duplicate", async () => {
    const page = await open();
    await send(page, "reload 1");
    await expect.poll(() => lastAssistant(page).getByTestId("assistant-text").textContent()).toBe("alpha ");
    await page.reload();
    await expect.poll(() => lastAssistant(page).getByTestId("assistant-text").textContent()).toBe("alpha ");
    expect(await status(page)).toBe("streaming");
    served.gate("reload 1").open();
    await expect
      .poll(() => lastAssistant(page).getByTestId("assistant-text").textContent())
      .toBe("alpha beta gamma delta");
    await expect.poll(() => status(page)).toBe("ready");
    expect(await page.locator('[data-role="assistant"]').count()).toBe(1);
    expect(await page.locator('[data-role="user"]').count()).toBe(1);
    await page.close();
  });

  it("a dropped connection mid-answer continues after the last event seen (Last-Event-ID): the whole text once", async () => {
    const page = await open();
    const resumes: string[] = [];
    page.on("request", (request) => {
      const last = request.headers()["last-event-id"];
      if (last) resumes.push(last);
    });
    await send(page, "reload drop");
    await expect.poll(() => lastAssistant(page).getByTestId("assistant-text").textContent()).toBe("alpha ");
    server.dropConnections();
    served.gate("reload drop").open();
    await expect
      .poll(() => lastAssistant(page).getByTestId("assistant-text").textContent())
      .toBe("alpha beta gamma delta");
    await expect.poll(() => status(page)).toBe("ready");
    // The page reconnected by itself, once, after the last event it had: no reload, no second message.
    expect(resumes).toHaveLength(1);
    expect(resumes[0]).toMatch(/^run_[0-9a-f-]+\/\d+$/);
    expect(await page.locator('[data-role="assistant"]').count()).toBe(1);
    expect(await page.locator('[data-role="user"]').count()).toBe(1);
    await page.close();
  });

  it("an Enter pressed while the chat's history still loads is sent once it has loaded, not dropped", async () => {
    await signInAs(browser.context, server.url, "alice");
    const page = await browser.context.newPage();
    // Hold the chat's history until the message has been typed and Enter pressed.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(/\/api\/chats\/[^/?#]+$/, async (route) => {
      if (route.request().method() === "GET") await held;
      await route.continue();
    });
    await page.goto(server.url);
    await send(page, "early bird");
    await expect.poll(() => page.getByTestId("message-box").getAttribute("data-queued")).toBe("true");
    expect(await status(page)).toBe("loading");
    expect(await page.locator('[data-role="user"]').count()).toBe(0);
    release();
    await expect
      .poll(() => lastAssistant(page).getByTestId("assistant-text").textContent())
      .toBe("You said: early bird");
    await expect.poll(() => status(page)).toBe("ready");
    expect(await page.getByTestId("message-box").inputValue()).toBe("");
    expect(await page.locator('[data-role="user"]').count()).toBe(1);
    await page.close();
  });

  it("shows a <script>, an onerror image and a markdown link from the model as characters: nothing runs, nothing links", async () => {
    const page = await open();
    await send(page, "hostile");
    const text = lastAssistant(page).getByTestId("assistant-text");
    await expect.poll(() => text.textContent()).toBe(HOSTILE_TEXT);
    await expect.poll(() => status(page)).toBe("ready");
    expect(await page.getByTestId("log").locator("script, img, iframe").count()).toBe(0);
    expect(await text.locator("a").count()).toBe(0);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    await page.close();
  });

  it("fits a 375 px phone screen: no sideways scrolling, the composer and approve buttons in reach", async () => {
    const page = await open();
    await page.setViewportSize({ width: 375, height: 740 });
    await send(page, "weather on the phone");
    await expect.poll(() => status(page)).toBe("ready");
    await lastAssistant(page).getByTestId("step").nth(1).getByTestId("glass-toggle").click();
    await lastAssistant(page).getByTestId("glass-request").waitFor();
    await send(page, "refund on the phone");
    await expect.poll(() => status(page)).toBe("awaiting-approval");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const approve = await lastAssistant(page).getByTestId("approve").boundingBox();
    expect(approve && approve.x + approve.width).toBeLessThanOrEqual(375);
    await page.screenshot({ path: join(ARTIFACTS, "chat-phone.png"), fullPage: true });
    await lastAssistant(page).getByTestId("approve").click();
    await expect.poll(() => status(page)).toBe("ready");
    await page.close();
  });

  it("signs in from the #token link glassloop serve prints, and drops the token from the address bar", async () => {
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    await page.goto(`${server.url}#token=${TOKENS.bob}`);
    await page.getByTestId("message-box").waitFor();
    expect(page.url()).not.toContain("token");
    await send(page, "hello from bob");
    await expect
      .poll(() => lastAssistant(page).getByTestId("assistant-text").textContent())
      .toBe("You said: hello from bob");
    await page.close();
    await browser.context.clearCookies();
    const stranger = await browser.context.newPage();
    await stranger.goto(`${server.url}#token=not-a-valid-token-000000`);
    await stranger.getByTestId("token-form").waitFor();
    await stranger.close();
  });
});
