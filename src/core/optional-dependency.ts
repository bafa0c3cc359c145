import { GlassloopError } from "./errors.js";

/** A package glassloop uses for one feature but does not install for everyone (an optional peer). */
export interface OptionalDependency {
  /** The npm package name, as Node reports it when it is missing. */
  packageName: string;
  /** What needs it, as the user wrote it: `glassloop/otel`, `glassloop/mcp`. */
  feature: string;
  /** The exact command that installs a version glassloop is tested with. */
  install: string;
}

/** `@opentelemetry/api`, for `glassloop/otel`. */
export const OTEL_API: OptionalDependency = {
  packageName: "@opentelemetry/api",
  feature: "glassloop/otel",
  install: "npm i @opentelemetry/api",
};

/** The MCP SDK (with its HTTP stack), for `glassloop/mcp` and `glassloop mcp serve`. */
export const MCP_SDK: OptionalDependency = {
  packageName: "@modelcontextprotocol/sdk",
  feature: "glassloop/mcp",
  install: "npm i -E @modelcontextprotocol/sdk@1.32.2",
};

/** An optional peer dependency is not installed; the message names the command that installs it. */
export class MissingDependencyError extends GlassloopError {
  declare readonly code: "missing_dependency";
  readonly packageName: string;
  readonly install: string;
  constructor(dependency: OptionalDependency, options?: { cause?: unknown }) {
    super(
      "missing_dependency",
      `${dependency.feature} needs ${dependency.packageName}, which is not installed. Install it with: ${dependency.install}`,
      options,
    );
    this.packageName = dependency.packageName;
    this.install = dependency.install;
  }
}

/**
 * Runs `load` (the dynamic imports of one optional package). Node's bare "Cannot find package"
 * for that package becomes a MissingDependencyError; any other failure, including a missing
 * package deeper down, passes through unchanged, because the install command would not fix it.
 */
export async function importOptional<T>(dependency: OptionalDependency, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isMissing(error, dependency.packageName))
      throw new MissingDependencyError(dependency, { cause: error });
    throw error;
  }
}

function isMissing(error: unknown, packageName: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  const message = error instanceof Error ? error.message : "";
  return message.includes(`'${packageName}'`) || message.includes(`'${packageName}/`);
}
