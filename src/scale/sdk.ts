import { importOptional, type OptionalDependency } from "../core/optional-dependency.js";

/** The version of `@dbos-inc/dbos-sdk` glassloop is tested with. */
export const DBOS_SDK_VERSION = "5.3.0";

/** `@dbos-inc/dbos-sdk`, for `glassloop/scale`. */
export const DBOS_SDK: OptionalDependency = {
  packageName: "@dbos-inc/dbos-sdk",
  feature: "glassloop/scale",
  install: `npm i -E @dbos-inc/dbos-sdk@${DBOS_SDK_VERSION} pg@8.23.1`,
};

/** The DBOS module, as `import("@dbos-inc/dbos-sdk")` gives it. */
export type DbosModule = typeof import("@dbos-inc/dbos-sdk");
/** A DBOS client, as `DBOSClient.create` gives it: how a process outside the workers reaches their runs. */
export type DbosClient = Awaited<ReturnType<DbosModule["DBOSClient"]["create"]>>;
/** DBOS's process-wide executor: recovery of another executor's workflows lives only there. */
export type DbosExecutorModule = typeof import("@dbos-inc/dbos-sdk/internal/dbos-executor");

/** Loads DBOS on first use; a missing package is a MissingDependencyError naming the install command. */
export function loadDbos(): Promise<DbosModule> {
  return importOptional(DBOS_SDK, () => import("@dbos-inc/dbos-sdk"));
}

/** DBOS's executor module, for `recoverPendingWorkflows` of a dead worker's executor id. */
export function loadDbosExecutor(): Promise<DbosExecutorModule> {
  return importOptional(DBOS_SDK, () => import("@dbos-inc/dbos-sdk/internal/dbos-executor"));
}

/** What DBOS sets on each connection of its own pool when the URL does not (its default, 60 s). */
const IDLE_IN_TRANSACTION_MS = 60_000;

/**
 * The Postgres URL handed to DBOS, with `idle_in_transaction_session_timeout` in its startup
 * `options`. Without it DBOS sets the timeout with a query it queues on every new connection
 * ahead of the borrower's first one, which pg 8 reports on each worker and client as a
 * DeprecationWarning (two queries queued on one client). Set at connection start, the server
 * applies the same timeout with no query at all, and DBOS leaves the connection alone. A URL
 * that already sets the timeout, or one that does not parse as a URL, is handed over unchanged.
 */
export function dbosSystemUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const options = parsed.searchParams.get("options") ?? "";
  if (options.includes("idle_in_transaction_session_timeout")) return url;
  const timeout = `-c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_MS}`;
  parsed.searchParams.set("options", options === "" ? timeout : `${options} ${timeout}`);
  return parsed.toString();
}
