/**
 * The Postgres store (`import { PostgresStore } from "glassloop/postgres"`): runs, sessions and
 * notes shared by many processes and machines. A separate entry so the core never loads `pg`,
 * an optional peer dependency.
 */
export { PG, PG_VERSION } from "./pg-driver.js";
export { describeUrl } from "./pg-errors.js";
export { PG_MIGRATIONS, PG_SCHEMA_VERSION, type PgMigration } from "./pg-migrations.js";
export type { PostgresOptions } from "./pg-pool.js";
export { PostgresRateLimiter, type PostgresRateLimiterOptions } from "./postgres-rate-limiter.js";
export { PostgresStore } from "./postgres-store.js";
