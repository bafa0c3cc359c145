import type { Tool } from "../tool.js";
import { calculatorTool } from "./calculator.js";
import { type ClockOptions, clockTool } from "./clock.js";
import { type FilesOptions, filesTools } from "./files.js";
import { type HttpGetOptions, httpGetTool } from "./http-get.js";
import { type ShellOptions, shellTool } from "./shell.js";

/** Settings shared by the built-in tools. */
export interface BuiltinToolOptions {
  /** The directory `files` is confined to and `shell` runs in. */
  root: string;
  clock?: ClockOptions;
  http?: HttpGetOptions;
  files?: Omit<FilesOptions, "root">;
  shell?: Omit<ShellOptions, "cwd">;
}

/** One opt-in entry of the catalog: the tools it adds and which of them need a human's approval. */
export interface BuiltinEntry {
  description: string;
  create(options: BuiltinToolOptions): Tool<never, unknown, unknown>[];
  /** Names of this entry's tools whose calls must be approved first (their `needsApproval`), for listings. */
  needsApproval: readonly string[];
}

/** The built-in tools by the name `--tools` uses; none is on unless asked for. */
export const BUILTIN_TOOLS = {
  calculator: {
    description:
      "arithmetic with a real parser: + - * / ^ %, sqrt, sin, cos, tan, log, ln, abs, round, min, max, pi, e",
    create: () => [calculatorTool()],
    needsApproval: [],
  },
  clock: {
    description: "the current date and time in an IANA time zone",
    create: (o) => [clockTool(o.clock)],
    needsApproval: [],
  },
  http_get: {
    description: "GET a public URL (text or JSON; private addresses refused)",
    create: (o) => [httpGetTool(o.http)],
    needsApproval: [],
  },
  files: {
    description: "read_file, list_files and write_file inside the working directory",
    create: (o) => filesTools({ root: o.root, ...o.files }),
    needsApproval: [],
  },
  shell: {
    description: "run a shell command; every command needs your approval",
    create: (o) => [shellTool({ cwd: o.root, ...o.shell })],
    needsApproval: ["shell"],
  },
} satisfies Record<string, BuiltinEntry>;

/** A name of `BUILTIN_TOOLS`. */
export type BuiltinName = keyof typeof BUILTIN_TOOLS;

export { calculate, calculatorTool } from "./calculator.js";
export { type ClockOptions, type ClockReading, clockTool } from "./clock.js";
export { ExpressionError } from "./expression.js";
export { type FilesOptions, filesTools } from "./files.js";
export { type HttpGetOptions, type HttpGetResult, httpGetTool } from "./http-get.js";
export { isPrivateAddress, type Resolver } from "./net-guard.js";
export { type ShellOptions, type ShellResult, shellTool } from "./shell.js";
