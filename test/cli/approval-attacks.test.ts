/**
 * The CLI's approval gate, resume and terminal output, attacked by a hostile model: a scripted
 * OpenAI-compatible server on 127.0.0.1 driving the real `glassloop` binary.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliArgv, runCli, tempCwd, useWireServer } from "../helpers/cli.js";
import { chatSse, sentBody } from "../helpers/openai-replies.js";
import { spawnPty } from "../helpers/pty.js";

const wire = useWireServer("sk-test-attacks-0000");
const env = () => wire.env();
const ESC = "\u001b";

const shellCall = (id: string, command: string) =>
  chatSse({ toolCalls: [{ id, name: "shell", arguments: JSON.stringify({ command }) }] });

/** Tool names offered in request `index`. */
const offered = (index: number) =>
  sentBody<{ tools?: { function: { name: string } }[] }>(wire.server.requests, index).tools?.map(
    (t) => t.function.name,
  );

describe("glassloop run: an approval is for one call, not for an id", () => {
  it("after y on --resume, a later call that reuses the approved id asks again; n keeps it from running", async () => {
    const cwd = tempCwd();
    wire.server.enqueue(shellCall("call_1", "echo first >> log.txt"));
    const paused = await runCli(["run", "--tools", "shell", "Log something"], { cwd, env: env() });
    expect(paused.code).toBe(1);
    const runId = /glassloop run --resume (run_\S+)/.exec(paused.stderr)?.[1] as string;

    // The model's next turn reuses the id for a different command.
    wire.server.enqueue(shellCall("call_1", "echo EVIL-RAN >> log.txt"), chatSse({ text: "All done." }));
    const pty = spawnPty(cliArgv("run", "--resume", runId), { cwd, env: env() });
    await pty.waitFor(`{"command":"echo first >> log.txt"}\n  Allow? [y/N]`);
    const mark = pty.output.length;
    pty.write("y\r");
    await pty.waitFor(`{"command":"echo EVIL-RAN >> log.txt"}\n  Allow? [y/N]`, { from: mark });
    pty.write("n\r");
    await pty.waitFor("All done.");
    expect(await pty.exited).toBe(0);
    expect(readFileSync(join(cwd, "log.txt"), "utf8")).toBe("first\n");
    const results = sentBody(wire.server.requests, 2).messages.filter((m) => m.role === "tool");
    expect(results.map((m) => m.content)).toEqual([
      expect.stringContaining('"exitCode":0'),
      "Not approved by the user.",
    ]);
  });
});

describe("glassloop run --resume: exactly the tools the run started with", () => {
  it("a tool the run refused as unknown is not enabled on resume, and tools offered but not called stay", async () => {
    const cwd = tempCwd();
    // The model asks for write_file, which this run does not have; then the process dies.
    wire.server.enqueue(
      chatSse({
        toolCalls: [{ id: "call_w", name: "write_file", arguments: '{"path":"pwned.txt","content":"x"}' }],
      }),
      chatSse({ text: "never sent", delayMs: 30_000 }),
    );
    let child: ChildProcess | undefined;
    const pending = runCli(["run", "--trace", "t.jsonl", "--tools", "calculator,clock", "What time is it?"], {
      cwd,
      env: env(),
      onStart: (c) => {
        child = c;
      },
    });
    const started = Date.now();
    while (wire.server.requests.length < 2 && Date.now() - started < 15_000)
      await new Promise((r) => setTimeout(r, 20));
    const runId = JSON.parse(readFileSync(join(cwd, "t.jsonl"), "utf8").split("\n")[0] as string)
      .runId as string;
    child?.kill("SIGKILL");
    await pending;
    expect(offered(0)).toEqual(["calculator", "clock"]);
    expect(sentBody(wire.server.requests, 1).messages.at(-1)?.content).toMatch(/^Unknown tool "write_file"/);

    wire.server.reset();
    wire.server.enqueue(
      chatSse({
        toolCalls: [{ id: "call_w2", name: "write_file", arguments: '{"path":"pwned.txt","content":"x"}' }],
      }),
      chatSse({ text: "I cannot write files." }),
    );
    const resumed = await runCli(["run", "--resume", runId], { cwd, env: env() });
    expect(resumed.stdout).toBe("I cannot write files.\n");
    expect(resumed.code).toBe(0);
    expect(existsSync(join(cwd, "pwned.txt"))).toBe(false);
    expect(offered(0)).toEqual(["calculator", "clock"]);
    expect(offered(1)).toEqual(["calculator", "clock"]);
  });

  it("--tools or --root on --resume is refused: the run's own record decides", async () => {
    const cwd = tempCwd();
    wire.server.enqueue(shellCall("call_1", "echo hi"));
    const paused = await runCli(["run", "--tools", "shell", "Say hi"], { cwd, env: env() });
    const runId = /glassloop run --resume (run_\S+)/.exec(paused.stderr)?.[1] as string;
    const widened = await runCli(["run", "--resume", runId, "--tools", "shell,files"], { cwd, env: env() });
    expect(widened.code).toBe(2);
    expect(widened.stderr).toContain(
      `--resume rebuilds the tools run ${runId} started with (shell in ${cwd})`,
    );
    expect(wire.server.requests).toHaveLength(1);
  });
});

describe("glassloop run: what the user approves is what runs", () => {
  it("a carriage return that would redraw the prompt, with a key the schema would strip, is refused: no prompt, nothing runs", async () => {
    const cwd = tempCwd();
    // On a terminal the \r returns to the line start, so the line reads {"command":"ls -la"}.
    const hidden = `{"command":"echo EVIL-RAN >> log.txt","pad":\r{"command":"ls -la"}${" ".repeat(50)}}`;
    wire.server.enqueue(
      chatSse({ toolCalls: [{ id: "call_1", name: "shell", arguments: hidden }] }),
      chatSse({ text: "Sorry." }),
    );
    const pty = spawnPty(cliArgv("run", "--tools", "shell", "List files"), { cwd, env: env() });
    await pty.waitFor("Sorry.");
    expect(await pty.exited).toBe(0);
    expect(pty.output).not.toContain("Allow?");
    expect(existsSync(join(cwd, "log.txt"))).toBe(false);
    // The call line shows the carriage return as \r, not as a cursor movement.
    expect(pty.raw).toContain('"pad":\\r{"command":"ls -la"}');
    expect(pty.raw).not.toContain('"pad":\r');
    const feedback = sentBody(wire.server.requests, 1).messages.at(-1);
    expect(feedback?.content).toMatch(/^Invalid arguments for shell: unknown key pad\b/);
  });

  it("escape sequences in a tool result and in the answer reach the terminal as visible text", async () => {
    const cwd = tempCwd();
    // OSC 0 retitles the window, CSI 2J clears the screen, OSC 52 writes the clipboard.
    writeFileSync(join(cwd, "notes.txt"), `${ESC}]0;pwned${"\u0007"}${ESC}[2Jcleared`);
    wire.server.enqueue(
      chatSse({ toolCalls: [{ id: "call_r", name: "read_file", arguments: '{"path":"notes.txt"}' }] }),
      chatSse({ text: `Line one\n\tindented ${ESC}]52;c;ZWNobyBwd25lZA==${"\u0007"}\u202eend` }),
    );
    const run = await runCli(["run", "--tools", "files", "Read notes.txt"], { cwd, env: env() });
    expect(run.code).toBe(0);
    expect(run.stderr + run.stdout).not.toContain(ESC);
    expect(run.stderr).toContain("← \\u001b]0;pwned\\u0007\\u001b[2Jcleared");
    // Newline and tab are kept in answers; the rest is shown.
    expect(run.stdout).toBe("Line one\n\tindented \\u001b]52;c;ZWNobyBwd25lZA==\\u0007\\u202eend\n");
  });
});
