// FIFOs (and other files that are not regular) planted where a tool or the trace
// reader will open them. Opening a FIFO blocks until the other end opens: a blocked libuv thread
// for the async tools, the whole process for the synchronous trace reader.
import { execFileSync } from "node:child_process";
import { constants, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolError } from "glassloop";
import { describe, expect, it } from "vitest";
import { openRegular } from "../../src/tools/builtin/files.js";
import { runCli, tempCwd, useWireServer } from "../helpers/cli.js";
import { chatSse, sentBody } from "../helpers/openai-replies.js";
import { tempDir, tracedCalculatorRun } from "../helpers/traced-run.js";

const wire = useWireServer("sk-test-fifo-0000");

const mkfifo = (path: string) => execFileSync("mkfifo", [path]);

describe("files tools: a FIFO inside the root", () => {
  it("write_file and read_file on a FIFO (or a symlink to one) are refused before opening; the run finishes", async () => {
    const cwd = tempCwd();
    mkfifo(join(cwd, "pipe.txt"));
    symlinkSync("pipe.txt", join(cwd, "link.txt"));
    const calls = [
      { id: "call_w", name: "write_file", arguments: JSON.stringify({ path: "pipe.txt", content: "x" }) },
      { id: "call_r", name: "read_file", arguments: JSON.stringify({ path: "pipe.txt" }) },
      { id: "call_l", name: "write_file", arguments: JSON.stringify({ path: "link.txt", content: "x" }) },
      { id: "call_ok", name: "write_file", arguments: JSON.stringify({ path: "ok.txt", content: "fine" }) },
    ];
    wire.server.enqueue(chatSse({ toolCalls: calls }), chatSse({ text: "Done." }));
    // Today's code blocks in open(2) on the FIFO and never exits: the kill after 15 s fails the test.
    const run = await runCli(["run", "--tools", "files", "Write the pipe"], {
      cwd,
      env: wire.env(),
      timeoutMs: 15_000,
    });
    expect(run.code).toBe(0);
    const results = sentBody(wire.server.requests, 1).messages.filter((m) => m.role === "tool");
    expect(results.map((m) => [m.tool_call_id, m.content])).toEqual([
      ["call_w", "Refused: pipe.txt is not a regular file"],
      ["call_r", "Refused: pipe.txt is not a regular file"],
      ["call_l", "Refused: link.txt is not a regular file"],
      ["call_ok", "Wrote 4 bytes to ok.txt"],
    ]);
  });

  it("a FIFO swapped in after the check does not block: the open never waits and the handle is checked", async () => {
    const fifo = join(tempCwd(), "late.fifo");
    mkfifo(fifo);
    // What a race between the check and the open would hand the tools: they open with O_NONBLOCK.
    const read = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    await expect(openRegular(fifo, read, "late.fifo", "read")).rejects.toThrow(
      new ToolError("Refused: late.fifo is not a regular file"),
    );
    const write = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
    await expect(openRegular(fifo, write, "late.fifo", "write")).rejects.toThrow(
      "Cannot write late.fifo: ENXIO",
    );
  });
});

describe("trace list: what is planted in the traces folder", () => {
  it("a FIFO named *.jsonl and symlinks out of the folder are not read; the real run is listed", async () => {
    const cwd = tempCwd();
    const dir = join(cwd, "traces");
    mkdirSync(dir);
    const { result } = await tracedCalculatorRun(dir);
    mkfifo(join(dir, "stuck.jsonl"));
    const secret = join(tempDir(), "passwd");
    writeFileSync(secret, "root:x:0:0:root:/root:/bin/bash\n");
    symlinkSync(secret, join(dir, "passwd.jsonl"));
    // Today the synchronous read of stuck.jsonl never returns: killed after 15 s.
    const run = await runCli(["trace", "list", "--dir", "traces"], {
      cwd,
      env: wire.env(),
      timeoutMs: 15_000,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(result.runId);
    expect(run.stdout + run.stderr).not.toContain("root:x:0:0");
    expect(run.stdout + run.stderr).not.toContain("stuck.jsonl");
  });
});
