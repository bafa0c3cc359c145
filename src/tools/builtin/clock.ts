import { z } from "zod";
import { ToolError } from "../../core/errors.js";
import { type Tool, tool } from "../tool.js";

/** Options of the `clock` tool. */
export interface ClockOptions {
  /** The zone used when the model names none (default: this machine's zone). */
  defaultTimeZone?: string;
  /** The current time; tests fix it. */
  now?: () => Date;
}

/** What the `clock` tool returns. */
export interface ClockReading {
  timeZone: string;
  /** Local date and time with the zone's UTC offset, e.g. `2026-11-30T08:05:09+08:00`. */
  iso: string;
  weekday: string;
  utcOffset: string;
}

const input = z.object({
  timeZone: z
    .string()
    .optional()
    .describe("IANA time zone, e.g. Asia/Shanghai, Europe/Berlin, America/New_York (default: local)"),
});

/** The `clock` tool: the current date and time in an IANA time zone. */
export function clockTool(options: ClockOptions = {}): Tool<z.output<typeof input>, unknown, ClockReading> {
  const now = options.now ?? (() => new Date());
  // Resolved at call time: Intl's first use loads ICU data, which building the tool must not cost.
  const fallback = () => options.defaultTimeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  return tool({
    name: "clock",
    description:
      "The current date, time and weekday in an IANA time zone (e.g. Asia/Shanghai); the local zone by default.",
    input,
    run: ({ timeZone }) => readClock(now(), timeZone?.trim() || fallback()),
  });
}

/** `date` as seen in `timeZone`; an unknown zone is a ToolError the model can fix. */
export function readClock(date: Date, timeZone: string): ClockReading {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "long",
      timeZoneName: "longOffset",
    });
  } catch {
    throw new ToolError(
      `Unknown time zone ${JSON.stringify(timeZone)}. Use an IANA name such as Asia/Shanghai, Europe/Berlin or UTC.`,
    );
  }
  const parts = Object.fromEntries(format.formatToParts(date).map((p) => [p.type, p.value]));
  // "GMT+08:00" → "+08:00"; plain "GMT" is UTC itself.
  const offset = (parts.timeZoneName ?? "GMT").replace("GMT", "") || "+00:00";
  return {
    timeZone,
    iso: `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset}`,
    weekday: parts.weekday ?? "",
    utcOffset: offset,
  };
}
