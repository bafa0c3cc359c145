import { rmSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeBrowser, openBrowser } from "../helpers/browser.js";
import { type ChatServer, signInAs, startChatServer, type TOKENS } from "../helpers/chat-server.js";
import { buildUseChatPage } from "../helpers/use-chat-page.js";
import { chatAgents } from "./chat-agents.js";

/**
 * The real `useChat` (`@ai-sdk/react` 3.0.328 on `ai` 6.0.325, the line that runs on Node 20),
 * bundled by Vite into test/pages/use-chat, in headless Chromium against a real `glassloop serve`
 * server. The page is served beside the handler from the same origin (as a Next.js app serves its
 * pages next to its route handler), so it reaches the API exactly as such a page would.
 */
describeBrowser("useChat from @ai-sdk/react against glassloop serve, in a real browser", () => {
  let server: ChatServer;
  let browser: Awaited<ReturnType<typeof openBrowser>>;
  let pageDir: string;
  const served = chatAgents();

  beforeAll(async () => {
    [pageDir, browser] = await Promise.all([buildUseChatPage("/use-chat/"), openBrowser()]);
    server = await startChatServer(served.agents, { "/use-chat/": pageDir });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    if (pageDir) rmSync(pageDir, { recursive: true, force: true });
  });

  async function open(chat: string, who: keyof typeof TOKENS = "alice"): Promise<Page> {
    await signInAs(browser.context, server.url, who);
    const page = await browser.context.newPage();
    await page.goto(`${server.url}use-chat/index.html?chat=${chat}&agent=helper`);
    await page.getByTestId("input").waitFor();
    return page;
  }

  async function send(page: Page, text: string): Promise<void> {
    await page.getByTestId("input").fill(text);
    await page.getByTestId("send").click();
  }

  const status = (page: Page) => page.getByTestId("status").textContent();
  const lastAssistant = (page: Page) => page.locator('[data-role="assistant"]').last();
  const answer = async (page: Page) =>
    (await lastAssistant(page).getByTestId("text").allTextContents()).join("");

  it("streams an answer with two tool calls into useChat's messages", async () => {
    const page = await open("uc-weather");
    await send(page, "weather in two cities");
    await expect.poll(() => answer(page)).toBe("Oslo is 4 °C and 東京 is 12 °C.");
    await expect.poll(() => status(page)).toBe("ready");
    const tools = lastAssistant(page).getByTestId("tool");
    expect(await tools.evaluateAll((els) => els.map((e) => e.getAttribute("data-state")))).toEqual([
      "output-available",
      "output-available",
    ]);
    expect((await tools.getByTestId("output").allTextContents()).map((t) => JSON.parse(t))).toEqual([
      { city: "Oslo", celsius: 4 },
      { city: "東京", celsius: 12 },
    ]);
    expect(await page.getByTestId("error").count()).toBe(0);
    await page.close();
  });

  it("an approval clicked in the page (addToolApprovalResponse) resumes the run", async () => {
    const page = await open("uc-refund");
    await send(page, "refund order A-1");
    const call = lastAssistant(page).getByTestId("tool");
    await expect.poll(() => call.getAttribute("data-state")).toBe("approval-requested");
    await expect.poll(() => status(page)).toBe("ready");
    await call.getByTestId("approve").click();
    await expect.poll(() => call.getAttribute("data-state")).toBe("output-available");
    expect(await call.getByTestId("output").textContent()).toBe(JSON.stringify("Refunded 5 EUR on A-1."));
    await expect.poll(() => answer(page)).toBe("Refunding A-1.Done: the refund went through.");
    expect(await page.locator('[data-role="assistant"]').count()).toBe(1);
    expect(await page.getByTestId("error").count()).toBe(0);
    await page.close();
  });

  it("a reload mid-stream continues the answer (resume: true) without a gap or a duplicate", async () => {
    const page = await open("uc-reload");
    await send(page, "reload 2");
    await expect.poll(() => answer(page)).toBe("alpha ");
    await page.reload();
    await page.getByTestId("input").waitFor();
    await expect.poll(() => answer(page)).toBe("alpha ");
    expect(await status(page)).toBe("streaming");
    served.gate("reload 2").open();
    await expect.poll(() => answer(page)).toBe("alpha beta gamma delta");
    await expect.poll(() => status(page)).toBe("ready");
    expect(await page.locator('[data-role="assistant"]').count()).toBe(1);
    expect(await page.locator('[data-role="user"]').count()).toBe(1);
    await page.close();
  });

  it("a second chat id starts empty and its model never sees the first chat; another caller's same chat id is a different chat", async () => {
    const first = await open("uc-first");
    await send(first, "the secret word is heliotrope");
    await expect.poll(() => answer(first)).toBe("You said: the secret word is heliotrope");
    await first.close();

    const second = await open("uc-second");
    expect(await second.getByTestId("message").count()).toBe(0);
    await send(second, "what was the secret word?");
    await expect.poll(() => answer(second)).toBe("You said: what was the secret word?");
    const secondBody = served.model.bodies.find((b) =>
      JSON.stringify(b).includes("what was the secret word?"),
    );
    expect(JSON.stringify(secondBody)).not.toContain("heliotrope");
    await second.close();

    const bob = await open("uc-first", "bob");
    expect(await bob.getByTestId("message").count()).toBe(0);
    await send(bob, "bob asks for the secret");
    await expect.poll(() => answer(bob)).toBe("You said: bob asks for the secret");
    const bobBody = served.model.bodies.find((b) => JSON.stringify(b).includes("bob asks for the secret"));
    expect(JSON.stringify(bobBody)).not.toContain("heliotrope");
    await bob.close();

    // Alice's chat is untouched by Bob's.
    const again = await open("uc-first");
    await expect.poll(() => again.getByTestId("message").count()).toBe(2);
    expect(await again.locator("body").textContent()).not.toContain("bob asks");
    await again.close();
  });
});
