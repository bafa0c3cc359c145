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
