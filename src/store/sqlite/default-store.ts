import { defaultDatabasePath } from "./default-path.js";
import { SqliteStore } from "./sqlite-store.js";

const opened = new Map<string, SqliteStore>();

/**
 * The shared embedded store of this process for a path (default: `GLASSLOOP_DB`, else
 * `.glassloop/glassloop.db` under the working directory), opened on first use.
 */
export function defaultStore(path?: string): SqliteStore {
  const file = defaultDatabasePath(path);
  let store = opened.get(file);
  if (!store) {
    store = new SqliteStore({ path: file });
    opened.set(file, store);
  }
  return store;
}
