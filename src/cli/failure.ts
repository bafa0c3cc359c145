import { GlassloopError, glassloopCodeOf, RunError } from "../core/errors.js";
import type { Redactor } from "../core/redact.js";
import { scrubberFor } from "../core/sink.js";
import { EXIT } from "./command.js";
import { visible } from "./visible.js";

/** The exit code for an error that ended a command: 1 for a failed run, 2 for usage or configuration. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof RunError) return EXIT.failed;
  // By code, so an error from a second copy of glassloop (a user module loaded with a clone's
  // sources) keeps its meaning.
  const code = glassloopCodeOf(error);
  return code !== undefined && CONFIG_CODES.has(code) ? EXIT.usage : EXIT.failed;
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
  "missing_dependency",
  "sqlite_binding_missing",
  "worker_id_taken",
  "scale_unknown",
  "dataset_invalid",
]);

/**
 * One readable line (more with GLASSLOOP_DEBUG=1) for an error, with any secret scrubbed and its
 * control characters made visible (an error can quote a server or a model).
 */
export function formatError(error: unknown, env: NodeJS.ProcessEnv): string {
  let text: string;
  if (error instanceof GlassloopError || glassloopCodeOf(error) !== undefined)
    text = (error as Error).message;
  else if (error instanceof Error) text = `unexpected error: ${error.message}`;
  else text = `unexpected error: ${String(error)}`;
  if (env.GLASSLOOP_DEBUG && error instanceof Error && error.stack) text += `\n${error.stack}`;
  return visible(scrubSecrets(text, env), "text");
}

/** The redactor of everything the CLI prints: the sinks' one scrubber for `env` (core/sink.ts). */
export function redactorFor(env: NodeJS.ProcessEnv): Redactor {
  return scrubberFor(env);
}

/** `text` with every secret (of `env`, and every credential shape) redacted: the last guard before output. */
export function scrubSecrets(text: string, env: NodeJS.ProcessEnv): string {
  return redactorFor(env).text(text);
}
