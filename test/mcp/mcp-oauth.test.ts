import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import {
  createMcpHttpHandler,
  createMcpServer,
  McpAuthError,
  McpClient,
  SqliteMcpCredentialStore,
} from "glassloop/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A server that answers every request 401, and an authorization server that echoes the token request (client secret included) in its error. */
describe("MCP OAuth against a server whose authorization server refuses", () => {
  let server: Server;
  let base: string;
  let authorizations = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url?.startsWith("/.well-known/oauth-protected-resource")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ resource: `${base}/mcp`, authorization_servers: [base] }));
      } else if (req.url?.startsWith("/.well-known/oauth-authorization-server")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            issuer: base,
            authorization_endpoint: `${base}/authorize`,
            token_endpoint: `${base}/token`,
            token_endpoint_auth_methods_supported: ["client_secret_post"],
            response_types_supported: ["code"],
            code_challenge_methods_supported: ["S256"],
          }),
        );
      } else if (req.url === "/token") {
        let body = "";
        req.on("data", (c) => {
          body += c;
        });
        req.on("end", () => {
          // A hostile or broken server puts what it was sent into its error.
          res.writeHead(400, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: "invalid_grant", error_description: `refused ${body}` }));
        });
      } else {
        res.writeHead(401, {
          "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
        });
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => {
    server.close();
  });

  it("fails the connect with a typed McpAuthError and the client secret redacted", async () => {
    const error = await McpClient.connect({
      name: "refusing",
      url: `${base}/mcp`,
      connectTimeoutMs: 10_000,
      auth: {
        clientId: "pre-registered",
        clientSecret: "very-secret-client-value",
        authorize: async () => {
          authorizations += 1;
          return "the-code";
        },
      },
    }).catch((e: unknown) => e);
    const cause = (error as { cause?: unknown }).cause;
    expect(cause).toBeInstanceOf(McpAuthError);
    expect((cause as McpAuthError).code).toBe("mcp_auth");
    expect(String((cause as Error).message)).toMatch(/invalid_grant|refused/);
    expect(JSON.stringify([String(error), String(cause)])).not.toContain("very-secret-client-value");
    expect(String((cause as Error).message)).toContain("[REDACTED]");
    expect(authorizations).toBe(1);
  });
});

describe("MCP OAuth credentials kept in glassloop's SQLite database", () => {
  it("a token saved by one process is used by the next without asking the person, and never printed", async () => {
    const handler = createMcpHttpHandler(
      () => createMcpServer({ tools: [{ name: "ping", description: "Pings.", run: () => "pong" }] }),
      { tokens: ["stored-access-token-0123456789"] },
    );
    const http = createServer(getRequestListener((request: Request) => handler.fetch(request)));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const path = join(mkdtempSync(join(tmpdir(), "glassloop-mcp-creds-")), "glassloop.db");
    const first = new SqliteMcpCredentialStore({ path });
    first.save(url, { tokens: { access_token: "stored-access-token-0123456789", token_type: "Bearer" } });
    first.close();

    const store = new SqliteMcpCredentialStore({ path });
    let asked = 0;
    const mcp = await McpClient.connect({
      name: "kept",
      url,
      auth: {
        store,
        authorize: async () => {
          asked += 1;
          return "unused";
        },
      },
    });
    expect(mcp.tools().map((t) => t.name)).toEqual(["ping"]);
    expect(asked).toBe(0);
    expect(store.load(url)?.tokens?.access_token).toBe("stored-access-token-0123456789");
    expect(JSON.stringify(store)).not.toContain("stored-access-token");
    store.delete(url);
    expect(store.load(url)).toBeUndefined();
    await mcp.close();
    store.close();
    await handler.close();
    http.close();
  });
});
