import { join, resolve } from "node:path";

/** The file the default store uses: `path`, else `GLASSLOOP_DB`, else `.glassloop/glassloop.db` under the cwd. */
export function defaultDatabasePath(path?: string): string {
  const chosen = path ?? process.env.GLASSLOOP_DB;
  if (chosen === ":memory:") return chosen;
  return resolve(chosen ?? join(process.cwd(), ".glassloop", "glassloop.db"));
}
