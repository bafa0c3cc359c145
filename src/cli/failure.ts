import { GlassloopError, RunError } from "../errors.js";
import { isSecretEnvName } from "../tools/builtin/shell.js";
import { EXIT } from "./command.js";

/** The exit code for an error that ended a command: 1 for a failed run, 2 for usage or configuration. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof RunError) return EXIT.failed;
  if (error instanceof GlassloopError) return CONFIG_CODES.has(error.code) ? EXIT.usage : EXIT.failed;
  return EXIT.failed;
}

/** Error codes that mean "fix your command or configuration", not "the run failed". */
const CONFIG_CODES = new Set([
  "usage",
  "config",
  "no_model",
  "trace_not_found",
  "trace_invalid",
  "unknown_run",
  "run_not_resumable",
  "unknown_session",
  "db_open",
  "db_corrupt",
  "schema_too_new",
]);

/** One readable line (more with GLASSLOOP_DEBUG=1) for an error, with any secret scrubbed. */
export function formatError(error: unknown, env: NodeJS.ProcessEnv): string {
  let text: string;
  if (error instanceof GlassloopError) text = error.message;
  else if (error instanceof Error) text = `unexpected error: ${error.message}`;
  else text = `unexpected error: ${String(error)}`;
  if (env.GLASSLOOP_DEBUG && error instanceof Error && error.stack) text += `\n${error.stack}`;
  return scrubSecrets(text, env);
}

/** Values of the environment that must never be printed: API keys, tokens, passwords. */
export function secretValues(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, value]) => isSecretEnvName(name) && value !== undefined && value.length >= 6)
    .map(([, value]) => value as string);
}

/** `text` with every secret value of `env` replaced by `[redacted]`: the last guard before output. */
export function scrubSecrets(text: string, env: NodeJS.ProcessEnv): string {
  let out = text;
  for (const secret of secretValues(env)) out = out.split(secret).join("[redacted]");
  return out;
}
