import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliArgv, tempCwd, useWireServer } from "../helpers/cli.js";
import { chatSse, sentBody } from "../helpers/openai-replies.js";
import { type PtyProcess, spawnPty } from "../helpers/pty.js";

const wire = useWireServer("sk-test-chat-000000");

const env = wire.env;

type Sent = { role: string; content?: string | null }[];
const sent = (i: number) =>
  sentBody<{ messages: Sent }>(wire.server.requests, i).messages.map((m) => `${m.role}: ${m.content ?? ""}`);

/** Types a line and waits until the chat prompts again. */
async function say(pty: PtyProcess, line: string, expect?: string): Promise<string> {
  const from = pty.output.length;
  pty.write(`${line}\r`);
  if (expect) await pty.waitFor(expect, { from });
  const out = await pty.waitFor(/you› $/, { from: from + line.length });
  return out.slice(from);
}

async function startChat(cwd: string, extra: string[] = []): Promise<PtyProcess> {
  const pty = spawnPty(cliArgv("chat", ...extra), { cwd, env: env() });
  await pty.waitFor(/you› $/);
  return pty;
}

describe("glassloop chat, driven through a pseudo-terminal", () => {
  it("Ctrl-C cancels the answer in progress, not the session", async () => {
    const cwd = tempCwd();
    wire.server.enqueue(
      chatSse({ text: "This answer takes forever.", delayMs: 20_000 }),
      chatSse({ text: "Still here." }),
    );
    const pty = await startChat(cwd);
    const from = pty.output.length;
    pty.write("Tell me a long story\r");
    while (wire.server.requests.length < 1) await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    pty.write("\u0003");
    await pty.waitFor("(cancelled; the conversation goes on)", { from });
    expect(Date.now() - started).toBeLessThan(3000);
    const after = await say(pty, "Are you there?", "Still here.");
    expect(after).toContain("Still here.");
    // The cancelled question stays in the conversation; the next request carries it.
    expect(sent(1).slice(1)).toEqual(["user: Tell me a long story", "user: Are you there?"]);
    pty.write("/exit\r");
    expect(await pty.exited).toBe(0);
  });

  it("Ctrl-C with nothing to cancel keeps the chat open", async () => {
    const pty = await startChat(tempCwd());
    const from = pty.output.length;
    pty.write("\u0003");
    await pty.waitFor("(nothing to cancel; /exit or Ctrl-D leaves)", { from });
    pty.write("\u0004");
    expect(await pty.exited).toBe(0);
  });

  it("a restart keeps the history; /reset forgets it", async () => {
    const cwd = tempCwd();
    wire.server.enqueue(
      chatSse({ text: "Hello Ada." }),
      chatSse({ text: "You are Ada." }),
      chatSse({ text: "I do not know your name." }),
    );
    const first = await startChat(cwd);
    expect(first.output).toContain('session "chat" · new');
    await say(first, "I am Ada.", "Hello Ada.");
    first.write("/exit\r");
    expect(await first.exited).toBe(0);

    const second = await startChat(cwd);
    expect(second.output).toContain('session "chat" · 2 earlier messages');
    await say(second, "Who am I?", "You are Ada.");
    expect(sent(1).slice(1)).toEqual(["user: I am Ada.", "assistant: Hello Ada.", "user: Who am I?"]);
    expect(await say(second, "/session")).toMatch(/session "chat": 4 messages in .*glassloop\.db/);
    expect(await say(second, "/reset")).toContain('session "chat" cleared');
    await say(second, "Who am I?", "I do not know your name.");
    expect(sent(2).slice(1)).toEqual(["user: Who am I?"]);
    second.write("/exit\r");
    expect(await second.exited).toBe(0);
  });

  it("/tools, /cost, /help and unknown commands", async () => {
    wire.server.enqueue(chatSse({ text: "Fine.", usage: { prompt_tokens: 40, completion_tokens: 2 } }));
    const pty = await startChat(tempCwd(), ["--tools", "calculator,clock", "--session", "tools-test"]);
    const tools = await say(pty, "/tools");
    expect(tools).toContain("calculator");
    expect(tools).toContain("clock");
    expect(await say(pty, "/cost")).toContain("nothing spent yet");
    await say(pty, "How are you?", "Fine.");
    expect(await say(pty, "/cost")).toMatch(/1 request · 42 tokens \(40 in, 2 out\)/);
    expect(await say(pty, "/help")).toContain("/reset  /tools  /cost  /session  /prompt  /exit");
    expect(await say(pty, "/teleport")).toContain("unknown command /teleport");
    pty.write("/exit\r");
    expect(await pty.exited).toBe(0);
  });

  it("asks for approval inside the chat, and the chat goes on after the answer", async () => {
    const cwd = tempCwd();
    wire.server.enqueue(
      chatSse({
        toolCalls: [{ id: "call_sh", name: "shell", arguments: '{"command":"echo hi > chat-marker.txt"}' }],
      }),
      chatSse({ text: "Made it." }),
    );
    const pty = await startChat(cwd, ["--tools", "shell"]);
    const from = pty.output.length;
    pty.write("Make a marker\r");
    await pty.waitFor('{"command":"echo hi > chat-marker.txt"}\n  Allow? [y/N]', { from });
    pty.write("y\r");
    await pty.waitFor("Made it.", { from });
    await pty.waitFor(/you› $/, { from });
    expect(existsSync(join(cwd, "chat-marker.txt"))).toBe(true);
    pty.write("/exit\r");
    expect(await pty.exited).toBe(0);
  });
});
