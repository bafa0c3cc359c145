/**
 * What a reader of a run driven here may see: only items already in the log. A process that dies
 * loses its unwritten items, and the one that takes the run over numbers on from the log's last;
 * had a client seen an unwritten item, its Last-Event-ID would skip the new item of that number.
 */
import { describe, expect, it } from "vitest";
import type { LogEntry, LogItem } from "../../src/serve/index.js";
import { RunHub } from "../../src/serve/run-hub.js";
import { SqliteServeLog } from "../../src/serve/sqlite-serve-log.js";

const delta = (text: string): LogItem =>
  ({
    kind: "event",
    part: "p",
    event: { type: "text_delta", runId: "r1", time: 1, step: 1, text },
  }) as LogItem;

/** A log whose appends wait until released, as a slow database would. */
class HeldLog extends SqliteServeLog {
  held: (() => void)[] = [];
  override async append(runId: string, entries: readonly LogEntry[]): Promise<void> {
    await new Promise<void>((resolve) => this.held.push(resolve));
    await super.append(runId, entries);
  }
}

describe("a run's channel", () => {
  it("hands readers an item only once the log holds it, and wakes them then", async () => {
    const log = new HeldLog(":memory:");
    await log.createRun({ runId: "r1", principal: "a", chatId: "c", agent: "x", model: "m", input: "" });
    const hub = new RunHub(log);
    const channel = hub.open("r1", -1);
    channel.append([delta("one "), delta("two ")]);
    expect(channel.lastSeq).toBe(1);
    expect((await hub.read("r1", -1, 10)).entries).toEqual([]);
    const woken = hub.wait("r1", -1, 10_000);
    while (log.held.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect((await hub.read("r1", -1, 10)).entries).toEqual([]);
    log.held.shift()?.();
    expect(await woken).toBe(false); // woken by the write, not by the timeout
    const read = await hub.read("r1", -1, 10);
    expect(read.entries.map((e) => e.seq)).toEqual([0, 1]);
    expect(await log.read("r1", -1, 10)).toEqual(read.entries);
    const ending = hub.close(channel);
    while (log.held.length > 0) log.held.shift()?.();
    await ending;
    log.close();
  });
});
