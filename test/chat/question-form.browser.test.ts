import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FunctionModel } from "../../src/testing.js";
import { describeBrowser, openBrowser } from "../helpers/browser.js";
import { type ChatServer, signInAs, startChatServer } from "../helpers/chat-server.js";
import { askingClient } from "../serve/fixtures/asking-server.js";

// What the page functions below read in the browser (this project's tests compile without the DOM library).
declare const window: { __pwned?: number };

describeBrowser("a tool's question in the chat page (an MCP server's elicitation)", () => {
  let server: ChatServer;
  let browser: Awaited<ReturnType<typeof openBrowser>>;

  beforeAll(async () => {
    server = await startChatServer({
      shop: async () => ({
        model: new FunctionModel((request) => {
          const last = request.messages.at(-1);
          if (last?.role === "tool") return { text: `done: ${last.content}` };
          return { toolCalls: [{ name: "confirm", args: {} }] };
        }),
        toolSources: [await askingClient()],
      }),
    });
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function ask(): Promise<Page> {
    await signInAs(browser.context, server.url, "alice");
    const page = await browser.context.newPage();
    await page.goto(server.url);
    await page.getByTestId("message-box").fill("ship it");
    await page.getByTestId("message-box").press("Enter");
    await page.getByTestId("question").waitFor();
    return page;
  }
  const answerText = (page: Page) =>
    page.locator('[data-role="assistant"]').last().getByTestId("assistant-text").last().textContent();

  it("shows the question as a form built from its schema, text not markup, and an accepted answer resumes the run", async () => {
    const page = await ask();
    const form = page.getByTestId("question");
    // The server's message is characters on the page: no element, nothing ran.
    expect(await form.getByTestId("question-message").textContent()).toBe(
      "Ship order <b>A-1</b> <img src=x onerror=alert(1)>?",
    );
    expect(await form.getByTestId("question-message").locator("b, img").count()).toBe(0);
    expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
    // One control per field, typed from the schema.
    expect(await form.locator('input[name="name"]').getAttribute("type")).toBe("text");
    expect(await form.locator('input[name="copies"]').getAttribute("type")).toBe("number");
    expect(await form.locator('input[name="express"]').getAttribute("type")).toBe("checkbox");
    expect(await form.locator('select[name="color"] option').allTextContents()).toEqual(["—", "red", "blue"]);
    expect(await form.locator('input[name="copies"]').inputValue()).toBe("1");

    // The server checks the answer itself: with the browser's own checks taken away, a missing
    // required field is refused there, shown as the chat's error, and the question stays.
    await form.locator('input[name="name"]').fill("Ada");
    await form.evaluate((el) => {
      for (const input of (
        el as unknown as { querySelectorAll(s: string): { removeAttribute(n: string): void }[] }
      ).querySelectorAll("[required]"))
        input.removeAttribute("required");
    });
    await form.getByTestId("question-accept").click();
    await expect.poll(() => page.getByTestId("chat-error").textContent()).toContain('required field "color"');
    // The form keeps what the person filled in.
    expect(await form.locator('input[name="name"]').inputValue()).toBe("Ada");

    await form.locator('input[name="copies"]').fill("2");
    await form.locator('input[name="express"]').check();
    await form.locator('select[name="color"]').selectOption("blue");
    await form.getByTestId("question-accept").click();

    await expect
      .poll(() => answerText(page))
      .toBe(
        'done: told {"action":"accept","content":{"name":"Ada","copies":2,"express":true,"color":"blue"}}',
      );
    await expect.poll(() => page.getByTestId("status").getAttribute("data-status")).toBe("ready");
    expect(await page.getByTestId("question").count()).toBe(0);
    await page.close();
  });

  it("declines from the keyboard: the server hears decline and the run ends", async () => {
    const page = await ask();
    // Focus and Enter in one action on the button: a separate focus() and a page-level key press
    // depend on nothing moving the focus in between (one clean-clone run hung here for 30 s).
    await page.getByTestId("question-decline").press("Enter");
    await expect.poll(() => answerText(page)).toBe('done: told {"action":"decline"}');
    await page.close();
  });
});
