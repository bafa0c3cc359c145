import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliArgv, runCli, tempCwd, useWireServer } from "../helpers/cli.js";
import { chatSse, sentBody } from "../helpers/openai-replies.js";
import { spawnPty } from "../helpers/pty.js";

const wire = useWireServer("sk-test-approval-0000");

const env = () => wire.env();
const ESC = String.fromCharCode(27);
const COMMAND = "echo approved-marker > marker.txt";

function script(final: string) {
  wire.server.enqueue(
    chatSse({
      toolCalls: [{ id: "call_sh", name: "shell", arguments: JSON.stringify({ command: COMMAND }) }],
    }),
    chatSse({ text: final }),
  );
}

/** What the model was told about the shell call. */
const toolResult = () => sentBody(wire.server.requests, 1).messages.find((m) => m.role === "tool")?.content;

describe("human approval in the CLI", () => {
  it("shows the exact arguments and runs the command only after y", async () => {
    script("Done.");
    const cwd = tempCwd();
    const pty = spawnPty(cliArgv("run", "--tools", "shell", "Make a marker file"), { cwd, env: env() });
    const prompt = await pty.waitFor("Allow? [y/N]");
    expect(prompt).toContain(
      `shell wants to run with these arguments:\n    {"command":"${COMMAND}"}\n  Allow? [y/N]`,
    );
    expect(existsSync(join(cwd, "marker.txt"))).toBe(false);
    pty.write("y\r");
    await pty.waitFor("Done.");
    expect(await pty.exited).toBe(0);
    expect(pty.output).toContain("approved");
    expect(readFileSync(join(cwd, "marker.txt"), "utf8")).toBe("approved-marker\n");
    expect(JSON.parse(toolResult() ?? "{}")).toEqual({ exitCode: 0, stdout: "", stderr: "" });
  });

  it("n refuses: nothing runs and the model hears it was not approved", async () => {
    script("Understood, I will not run it.");
    const cwd = tempCwd();
    const pty = spawnPty(cliArgv("run", "--tools", "shell", "Make a marker file"), { cwd, env: env() });
    await pty.waitFor("Allow? [y/N]");
    pty.write("n\r");
    await pty.waitFor("Understood, I will not run it.");
    expect(await pty.exited).toBe(0);
    expect(pty.output).toContain("not approved");
    expect(existsSync(join(cwd, "marker.txt"))).toBe(false);
    expect(toolResult()).toBe("Not approved by the user.");
  });

  it("without a terminal the run pauses in the store; --resume on a terminal asks, then continues", async () => {
    script("Marker made.");
    const cwd = tempCwd();
    const paused = await runCli(["run", "--tools", "shell", "Make a marker file"], { cwd, env: env() });
    expect(paused.code).toBe(1);
    expect(paused.stderr).toContain(`⏸ paused: 1 call needs approval\n    shell {"command":"${COMMAND}"}`);
    const runId = /glassloop run --resume (run_\S+)/.exec(paused.stderr)?.[1] as string;
    expect(runId).toBeDefined();
    expect(existsSync(join(cwd, "marker.txt"))).toBe(false);
    expect(wire.server.requests).toHaveLength(1);

    const noTerminal = await runCli(["run", "--resume", runId], { cwd, env: env() });
    expect(noTerminal.code).toBe(2);
    expect(noTerminal.stderr).toContain(
      `run ${runId} waits for approval of shell: resume it on a terminal to decide`,
    );

    const pty = spawnPty(cliArgv("run", "--resume", runId), { cwd, env: env() });
    await pty.waitFor(`{"command":"${COMMAND}"}\n  Allow? [y/N]`);
    pty.write("y\r");
    await pty.waitFor("Marker made.");
    expect(await pty.exited).toBe(0);
    expect(readFileSync(join(cwd, "marker.txt"), "utf8")).toBe("approved-marker\n");
    expect(JSON.parse(toolResult() ?? "{}")).toMatchObject({ exitCode: 0 });
  });

  it("--json reports a paused run with the calls it waits for", async () => {
    script("unused");
    const run = await runCli(["run", "--json", "--tools", "shell", "Make a marker file"], {
      cwd: tempCwd(),
      env: env(),
    });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      status: "awaiting_approval",
      error: { code: "awaiting_approval" },
      pending: [
        { toolCallId: "call_sh", toolName: "shell", arguments: JSON.stringify({ command: COMMAND }) },
      ],
    });
  });

  it("on a terminal, output is colored unless NO_COLOR is set", async () => {
    wire.server.enqueue(chatSse({ text: "Hi." }), chatSse({ text: "Hi." }));
    const colored = spawnPty(cliArgv("run", "hello"), { cwd: tempCwd(), env: { ...env(), NO_COLOR: "" } });
    await colored.exited;
    const plain = spawnPty(cliArgv("run", "hello"), { cwd: tempCwd(), env: env() });
    await plain.exited;
    expect(colored.raw).toContain(`${ESC}[32m✓`);
    expect(plain.raw).not.toMatch(new RegExp(`${ESC}\\[3\\dm`));
  });
});
