import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { McpElicitation } from "glassloop/mcp";
import { describe, expect, it } from "vitest";
import type { Asker } from "../../src/cli/approval.js";
import { terminalElicitation } from "../../src/cli/mcp-servers.js";
import { Printer } from "../../src/cli/printer.js";
import { cliArgv, tempCwd, useWireServer } from "../helpers/cli.js";
import { chatSse, sentBody } from "../helpers/openai-replies.js";
import { spawnPty } from "../helpers/pty.js";

const wire = useWireServer("sk-test-mcp-cli-0000");
const EVERYTHING = resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");

/** A printer into a string, and an asker that types `answers` one line at a time. */
function terminal(answers: string[]) {
  let shown = "";
  const sink = {
    write(chunk: string) {
      shown += chunk;
      return true;
    },
    end() {},
    isTTY: false,
  } as unknown as NodeJS.WritableStream;
  const printer = new Printer({
    stdout: sink,
    stderr: sink,
    stdin: process.stdin,
    env: {},
    cwd: process.cwd(),
  });
  const asked: string[] = [];
  const asker: Asker = {
    question(query, _options, callback) {
      asked.push(query);
      const next = answers.shift();
      if (next !== undefined) callback(next);
    },
  };
  return { printer, asker, asked, shown: () => shown };
}

const question = (schema: Record<string, unknown>, message = "Who are you?"): McpElicitation => ({
  server: "srv",
  message,
  schema,
  signal: new AbortController().signal,
});

describe("MCP questions on the terminal (glassloop run and chat)", () => {
  it("asks each field with its type, keeps defaults on an empty line, and re-asks a wrong answer", async () => {
    const t = terminal(["y", "Ada", "abc", "120", "36", "", "Rachel", "Piano,Drums", "y"]);
    const answer = await terminalElicitation(
      t.printer,
      t.asker,
    )(
      question({
        type: "object",
        properties: {
          name: { type: "string", title: "Name" },
          age: { type: "integer", minimum: 0, maximum: 110 },
          line: { type: "string", default: "It was a dark night." },
          friend: { type: "string", enum: ["Monica", "Rachel"] },
          music: { type: "array", items: { type: "string", enum: ["Piano", "Drums", "Bass"] } },
          agree: { type: "boolean" },
        },
        required: ["name", "age"],
      }),
    );
    expect(answer).toEqual({
      action: "accept",
      content: { name: "Ada", age: 36, friend: "Rachel", music: ["Piano", "Drums"], agree: true },
    });
    expect(t.asked[1]).toBe("  (1/6) Name (string): ");
    expect(t.asked[3]).toBe("  (2/6) age (integer): ");
    expect(t.shown()).toContain("not an integer");
    expect(t.shown()).toContain("must be between 0 and 110");
  });

  it("declines on n, cancels on c or after three wrong answers, and declines a form of 31 fields", async () => {
    const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    expect(
      await terminalElicitation(terminal(["n"]).printer, terminal(["n"]).asker)(question(schema)),
    ).toEqual({
      action: "decline",
    });
    const c = terminal(["c"]);
    expect(await terminalElicitation(c.printer, c.asker)(question(schema))).toEqual({ action: "cancel" });
    const wrong = terminal(["y", "x", "y", "z"]);
    expect(await terminalElicitation(wrong.printer, wrong.asker)(question(schema))).toEqual({
      action: "cancel",
    });
    const huge = terminal([]);
    const properties = Object.fromEntries(
      Array.from({ length: 31 }, (_, i) => [`f${i}`, { type: "string" }]),
    );
    expect(
      await terminalElicitation(huge.printer, huge.asker)(question({ type: "object", properties })),
    ).toEqual({
      action: "decline",
    });
    expect(huge.asked).toEqual([]);
  });

  it("shows a server's control characters as visible text, and a withdrawn question is cancelled", async () => {
    const t = terminal(["n"]);
    await terminalElicitation(
      t.printer,
      t.asker,
    )(question({ type: "object", properties: {} }, "Hi\u001b]52;c;cHduZWQ=\u0007"));
    expect(t.shown()).not.toContain("\u001b]52");
    expect(t.shown()).toContain("\\u001b]52");
    const never = terminal([]);
    const controller = new AbortController();
    const pending = terminalElicitation(
      never.printer,
      never.asker,
    )({
      ...question({ type: "object", properties: {} }),
      signal: controller.signal,
    });
    controller.abort(new Error("the server withdrew it"));
    expect(await pending).toEqual({ action: "cancel" });
  });

  it("glassloop run with server-everything in mcpServers: its question is answered on a pty", async () => {
    wire.server.enqueue(
      chatSse({
        toolCalls: [{ id: "call_e", name: "everything_trigger-elicitation-request", arguments: "{}" }],
      }),
      chatSse({ text: "Thanks, Ada." }),
    );
    const cwd = tempCwd();
    writeFileSync(
      join(cwd, "glassloop.config.json"),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      }),
    );
    const pty = spawnPty(cliArgv("run", "--no-trace", "Ask me for my details"), { cwd, env: wire.env() });
    try {
      await pty.waitFor("Answer? [y/N/c]", { timeoutMs: 30_000 });
      expect(pty.output).toContain(
        "MCP server everything asks:\n    Please provide inputs for the following fields:",
      );
      pty.write("y\r");
      const first = await pty.waitFor(/\(1\/(\d+)\)/);
      const fields = Number(/\(1\/(\d+)\)/.exec(first)?.[1]);
      pty.write("Ada Lovelace\r");
      for (let i = 2; i <= fields; i++) {
        await pty.waitFor(`(${i}/${fields})`);
        pty.write("\r");
      }
      await pty.waitFor("Thanks, Ada.", { timeoutMs: 30_000 });
      expect(await pty.exited).toBe(0);
    } finally {
      pty.kill();
    }
    const toolMessage = sentBody(wire.server.requests, 1).messages.find((m) => m.role === "tool")?.content;
    expect(toolMessage).toContain("Ada Lovelace");
    expect(toolMessage).toContain('"action": "accept"');
  }, 90_000);

  it("glassloop chat: /prompt lists the servers' prompts and sends one, with its arguments, as the user's message", async () => {
    wire.server.enqueue(chatSse({ text: "Sunny in Paris." }));
    const cwd = tempCwd();
    writeFileSync(
      join(cwd, "glassloop.config.json"),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, "stdio"] } },
      }),
    );
    const pty = spawnPty(cliArgv("chat", "--no-trace"), { cwd, env: wire.env() });
    try {
      await pty.waitFor(/you› $/, { timeoutMs: 30_000 });
      let from = pty.output.length;
      pty.write("/prompt\r");
      await pty.waitFor("everything args-prompt city state?", { from });
      from = pty.output.length;
      pty.write("/prompt everything args-prompt city=Paris\r");
      await pty.waitFor("Sunny in Paris.", { from, timeoutMs: 30_000 });
      pty.write("/exit\r");
      expect(await pty.exited).toBe(0);
    } finally {
      pty.kill();
    }
    const sentMessages = sentBody<{ messages: { role: string; content?: string }[] }>(
      wire.server.requests,
      0,
    ).messages;
    expect(sentMessages.at(-1)).toMatchObject({ role: "user", content: "What's weather in Paris?" });
  }, 90_000);
});
