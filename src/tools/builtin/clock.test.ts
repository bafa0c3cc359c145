import { ToolError } from "glassloop";
import { describe, expect, it } from "vitest";
import { runTool } from "../../../test/helpers/run-tool.js";
import { clockTool, readClock } from "./clock.js";

const at = new Date("2026-03-08T12:34:56Z");

describe("clock", () => {
  it.each([
    ["Asia/Shanghai", "2026-03-08T20:34:56+08:00", "Sunday"],
    ["UTC", "2026-03-08T12:34:56+00:00", "Sunday"],
    ["America/St_Johns", "2026-03-08T10:04:56-02:30", "Sunday"],
    ["Pacific/Kiritimati", "2026-03-09T02:34:56+14:00", "Monday"],
  ])("tells the time in %s", (timeZone, iso, weekday) => {
    expect(readClock(at, timeZone)).toEqual({ timeZone, iso, weekday, utcOffset: iso.slice(-6) });
  });

  it("uses the configured default zone when the model names none", async () => {
    const clock = clockTool({ now: () => at, defaultTimeZone: "Europe/Berlin" });
    expect(await runTool(clock, {})).toMatchObject({
      timeZone: "Europe/Berlin",
      iso: "2026-03-08T13:34:56+01:00",
    });
  });

  it("refuses an unknown zone with a message the model can act on", async () => {
    const clock = clockTool({ now: () => at });
    await expect(runTool(clock, { timeZone: "Mars/Olympus_Mons" })).rejects.toThrow(ToolError);
    await expect(runTool(clock, { timeZone: "Mars/Olympus_Mons" })).rejects.toThrow(
      /Unknown time zone.*IANA/,
    );
  });
});
