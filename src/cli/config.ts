import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../core/errors.js";
import { formatIssues } from "../loop/environment/feedback.js";
import { mcpServersSchema } from "./mcp-servers.js";

/** The name of the project configuration file, looked up in the working directory. */
export const CONFIG_FILE = "glassloop.config.json";

const schema = z.strictObject({
  $schema: z.string().optional(),
  /** `provider:model`, used when neither --model nor GLASSLOOP_MODEL is given. */
  model: z.string().min(1).optional(),
  /** The system prompt of `run` and `chat`. */
  instructions: z.string().optional(),
  /** Built-in tools on by default (as with --tools). */
  tools: z.array(z.string()).optional(),
  maxSteps: z.number().int().positive().optional(),
  maxCostUsd: z.number().positive().optional(),
  /** The directory `files` is confined to and `shell` runs in (default: the working directory). */
  root: z.string().optional(),
  http: z
    .strictObject({
      allowPrivateNetworks: z.boolean().optional(),
      allowedHosts: z.array(z.string()).optional(),
      maxBytes: z.number().int().positive().optional(),
      timeoutMs: z.number().positive().optional(),
    })
    .optional(),
  /** Transport bounds of the model's HTTP calls (providers over HTTP; see docs/providers.md). */
  modelHttp: z
    .strictObject({
      deadlineMs: z.number().int().positive().optional(),
      timeoutMs: z.number().int().positive().optional(),
      streamIdleTimeoutMs: z.number().int().positive().optional(),
      maxStreamBytes: z.number().int().positive().optional(),
      maxResponseBytes: z.number().int().positive().optional(),
      maxErrorBodyBytes: z.number().int().positive().optional(),
      maxRetries: z.number().int().min(0).optional(),
    })
    .optional(),
  /** MCP servers whose tools join `run` and `chat` (docs/mcp.md). */
  mcpServers: mcpServersSchema.optional(),
  shell: z
    .strictObject({
      /** Environment variables passed to `shell` commands besides PATH, HOME, LANG, LC_*, TERM, TZ, USER, SHELL, TMPDIR. */
      passEnv: z.array(z.string().min(1)).optional(),
    })
    .optional(),
});

/** The contents of `glassloop.config.json`. */
export type CliConfig = z.output<typeof schema>;

/** Reads the configuration file of `cwd`; none is `{}`, a broken one is a ConfigError naming the file. */
export function loadConfig(cwd: string, env: NodeJS.ProcessEnv): { config: CliConfig; path?: string } {
  const path = env.GLASSLOOP_CONFIG || join(cwd, CONFIG_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && !env.GLASSLOOP_CONFIG) return { config: {} };
    throw new ConfigError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ConfigError(`${path}: ${formatIssues(parsed.error.issues)}`);
  return { config: parsed.data, path };
}
