import { createRequire } from "node:module";
import { MissingDependencyError, type OptionalDependency } from "../../core/optional-dependency.js";

/** The version of `pg` glassloop is tested with (the one `@dbos-inc/dbos-sdk` resolves to). */
export const PG_VERSION = "8.23.1";

/** `pg`, for `glassloop/postgres`. */
export const PG: OptionalDependency = {
  packageName: "pg",
  feature: "glassloop/postgres",
  install: `npm i -E pg@${PG_VERSION}`,
};

/** What a query returns: the rows, and how many rows a write touched. */
export interface PgResult<R> {
  rows: R[];
  rowCount: number | null;
}

/** One connection checked out of the pool: the part of `pg.PoolClient` the store uses. */
export interface PgClient {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PgResult<R>>;
  /** A named statement: parsed and planned once per connection, then only executed. */
  query<R = Record<string, unknown>>(config: PgNamedQuery): Promise<PgResult<R>>;
  release(destroy?: boolean | Error): void;
}

/** A query as a named (prepared) statement. */
export interface PgNamedQuery {
  name: string;
  text: string;
  values: unknown[];
}

/** The part of `pg.Pool` the store uses. */
export interface PgPool {
  connect(): Promise<PgClient>;
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PgResult<R>>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/** The pool's settings, as `pg` takes them. */
export interface PgPoolConfig {
  connectionString: string;
  max: number;
  connectionTimeoutMillis: number;
  idleTimeoutMillis: number;
  options: string;
  application_name: string;
  types: { getTypeParser(oid: number, format?: string): (value: string) => unknown };
}

interface PgModule {
  Pool: new (config: PgPoolConfig) => PgPool;
  types: { getTypeParser(oid: number, format?: string): (value: string) => unknown };
}

// pg is CommonJS; a synchronous require keeps `connect()` to one await, and loads it only when used.
let driver: PgModule | undefined;

/**
 * Loads `pg` (through `load`, a CommonJS require); a missing package is a MissingDependencyError
 * naming the install command, and any other failure passes through.
 */
export function loadPg(load?: (id: string) => unknown): PgModule {
  if (driver && !load) return driver;
  try {
    const loaded = (load ?? createRequire(import.meta.url))("pg") as PgModule;
    if (!load) driver = loaded;
    return loaded;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : "";
    // Node's words: "Cannot find module 'pg'"; a module missing deeper down names another one.
    if (code === "MODULE_NOT_FOUND" && message.includes("'pg'"))
      throw new MissingDependencyError(PG, { cause: error });
    throw error;
  }
}

const INT8 = 20;

/**
 * Type parsers: int8 columns (millisecond timestamps, note ids) as numbers instead of strings;
 * they stay far below 2^53. Everything else as `pg` parses it (json columns become values).
 */
export function pgTypes(pg: PgModule): PgPoolConfig["types"] {
  return {
    getTypeParser(oid, format) {
      if (oid === INT8 && format !== "binary") return Number;
      return pg.types.getTypeParser(oid, format);
    },
  };
}
