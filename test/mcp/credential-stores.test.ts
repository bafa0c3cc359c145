/**
 * The MCP credential stores' one contract, on SQLite and on Postgres: what one connection saves
 * another (a second process) loads, per server URL; a save replaces; delete forgets; and no token
 * leaves through what the object prints or an error it throws.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { getRequestListener } from "@hono/node-server";
import {
  createMcpHttpHandler,
  createMcpServer,
  McpClient,
  type McpCredentials,
  PostgresMcpCredentialStore,
  SqliteMcpCredentialStore,
} from "glassloop/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { freshSchema, POSTGRES_SKIP, postgresUrl } from "../helpers/postgres.js";

/** The contract's view of a store: every call awaited, whether the store is synchronous or not. */
interface CredentialStore {
  load(server: string): McpCredentials | undefined | Promise<McpCredentials | undefined>;
  save(server: string, credentials: McpCredentials): void | Promise<void>;
  delete(server: string): void | Promise<void>;
  close(): void | Promise<void>;
  toJSON(): { location: string };
}

interface Backend {
  name: string;
  skip: string | undefined;
  /** A fresh database; `open` then opens connections on it, as separate processes would. */
  fresh(): Promise<() => Promise<CredentialStore>>;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const BACKENDS: Backend[] = [
  {
    name: "SqliteMcpCredentialStore",
    skip: undefined,
    async fresh() {
      const dir = mkdtempSync(join(tmpdir(), "glassloop-mcp-creds-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      return async () => {
        const store = new SqliteMcpCredentialStore({ path: join(dir, "glassloop.db") });
        cleanups.push(() => store.close());
        return store;
      };
    },
  },
  {
    name: "PostgresMcpCredentialStore",
    skip: POSTGRES_SKIP,
    async fresh() {
      const url = await postgresUrl();
      const schema = freshSchema();
      return async () => {
        const store = await PostgresMcpCredentialStore.connect({ url, schema });
        cleanups.push(() => store.close());
        return store;
      };
    },
  },
];

const ACCESS = "access-token-0123456789abcdef";
const REFRESH = "refresh-token-0123456789abcdef";
const SECRET = "client-secret-0123456789abcdef";
const credentials = (access: string): McpCredentials => ({
  client: { client_id: "glassloop-client", client_secret: SECRET },
  tokens: { access_token: access, refresh_token: REFRESH, token_type: "Bearer", expires_in: 3600 },
});

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip !== undefined)(`${backend.name}: the credential store contract`, () => {
    it("keeps each server's credentials for the next connection, replaces them on save and forgets them on delete", async () => {
      const open = await backend.fresh();
      const first = await open();
      expect(await first.load("https://a.example/mcp")).toBeUndefined();
      await first.save("https://a.example/mcp", credentials(ACCESS));
      await first.save("https://b.example/mcp", credentials("other-access-token-0123456789"));
      await first.close();

      const second = await open();
      expect(await second.load("https://a.example/mcp")).toEqual(credentials(ACCESS));
      expect((await second.load("https://b.example/mcp"))?.tokens?.access_token).toBe(
        "other-access-token-0123456789",
      );
      // A refresh replaces the record whole.
      await second.save("https://a.example/mcp", {
        tokens: { access_token: "refreshed-0123456789", token_type: "Bearer" },
      });
      expect(await second.load("https://a.example/mcp")).toEqual({
        tokens: { access_token: "refreshed-0123456789", token_type: "Bearer" },
      });
      await second.delete("https://a.example/mcp");
      expect(await second.load("https://a.example/mcp")).toBeUndefined();
      expect(await second.load("https://b.example/mcp")).toBeDefined();
    });

    it("gives a client the token another process saved, so the person is not asked again", async () => {
      const token = "stored-access-token-0123456789";
      const handler = createMcpHttpHandler(
        () => createMcpServer({ tools: [{ name: "ping", description: "Pings.", run: () => "pong" }] }),
        { tokens: [token] },
      );
      const http = createServer(getRequestListener((request: Request) => handler.fetch(request)));
      cleanups.push(async () => {
        http.close();
        await handler.close();
      });
      await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
      const open = await backend.fresh();
      const first = await open();
      await first.save(url, { tokens: { access_token: token, token_type: "Bearer" } });
      await first.close();
      let asked = 0;
      const mcp = await McpClient.connect({
        name: "kept",
        url,
        auth: {
          store: await open(),
          authorize: async () => {
            asked += 1;
            return "unused";
          },
        },
      });
      cleanups.push(() => mcp.close());
      expect(mcp.tools().map((t) => t.name)).toEqual(["ping"]);
      expect(asked).toBe(0);
    });

    it("never prints the tokens: not in JSON, not in inspect, not in the error of a failed save", async () => {
      const open = await backend.fresh();
      const store = await open();
      await store.save("https://a.example/mcp", credentials(ACCESS));
      for (const shown of [JSON.stringify(store), inspect(store, { depth: 8, showHidden: true })]) {
        for (const secret of [ACCESS, REFRESH, SECRET]) expect(shown).not.toContain(secret);
      }
      expect(store.toJSON().location).not.toBe("");
      // A record the database refuses (a NUL in a token, which JSON text in Postgres or a closed
      // database refuses): whatever the error says, the tokens are not in it.
      await store.close();
      let failure: unknown;
      try {
        await store.save("https://a.example/mcp", credentials(ACCESS));
      } catch (error) {
        failure = error;
      }
      expect(failure).toBeInstanceOf(Error);
      const text = `${inspect(failure, { depth: 8 })} ${String((failure as Error).stack)}`;
      for (const secret of [ACCESS, REFRESH, SECRET]) expect(text).not.toContain(secret);
    });
  });
}
