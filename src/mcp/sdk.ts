/**
 * The MCP SDK's parts glassloop uses, loaded once. The SDK is an optional peer dependency (it
 * brings an HTTP server stack most users never need): without it, importing glassloop/mcp fails
 * with the command that installs it, not Node's bare "Cannot find package".
 */
import type * as ClientModule from "@modelcontextprotocol/sdk/client/index.js";
import type * as StdioClientModule from "@modelcontextprotocol/sdk/client/stdio.js";
import type * as HttpClientModule from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type * as ServerModule from "@modelcontextprotocol/sdk/server/mcp.js";
import type * as StdioServerModule from "@modelcontextprotocol/sdk/server/stdio.js";
import type * as HttpServerModule from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { importOptional, MCP_SDK } from "../core/optional-dependency.js";

const [client, stdioClient, httpClient, types, server, stdioServer, httpServer, auth, completion] =
  await importOptional(MCP_SDK, () =>
    Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js"),
      import("@modelcontextprotocol/sdk/client/stdio.js"),
      import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
      import("@modelcontextprotocol/sdk/types.js"),
      import("@modelcontextprotocol/sdk/server/mcp.js"),
      import("@modelcontextprotocol/sdk/server/stdio.js"),
      import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
      import("@modelcontextprotocol/sdk/client/auth.js"),
      import("@modelcontextprotocol/sdk/server/completable.js"),
    ]),
  );

/** The SDK's MCP client. */
export const Client = client.Client;
/** An instance of the SDK's MCP client. */
export type Client = ClientModule.Client;
/** The SDK's stdio client transport (spawns the server). */
export const StdioClientTransport = stdioClient.StdioClientTransport;
/** An instance of the stdio client transport. */
export type StdioClientTransport = StdioClientModule.StdioClientTransport;
/** The SDK's streamable HTTP client transport. */
export const StreamableHTTPClientTransport = httpClient.StreamableHTTPClientTransport;
/** An instance of the streamable HTTP client transport. */
export type StreamableHTTPClientTransport = HttpClientModule.StreamableHTTPClientTransport;
/** The notification a server sends when its tool list changed. */
export const ToolListChangedNotificationSchema = types.ToolListChangedNotificationSchema;
/** The SDK's high-level MCP server. */
export const McpServer = server.McpServer;
/** An instance of the SDK's MCP server. */
export type McpServer = ServerModule.McpServer;
/** A resource template of the SDK's server (a URI template with list and completion callbacks). */
export const ResourceTemplate = server.ResourceTemplate;
/** Marks a prompt argument's schema as completable (`completion/complete`). */
export const completable = completion.completable;
/** The SDK's stdio server transport. */
export const StdioServerTransport = stdioServer.StdioServerTransport;
/** An instance of the stdio server transport. */
export type StdioServerTransport = StdioServerModule.StdioServerTransport;
/** The SDK's streamable HTTP server transport on Web-standard Request and Response. */
export const WebStandardStreamableHTTPServerTransport = httpServer.WebStandardStreamableHTTPServerTransport;
/** An instance of the streamable HTTP server transport. */
export type WebStandardStreamableHTTPServerTransport =
  HttpServerModule.WebStandardStreamableHTTPServerTransport;
/** The SDK's request and notification schemas (the client registers handlers with them). */
export const schemas = types;
/** The SDK's OAuth client flow (discovery, registration, PKCE, token exchange and refresh). */
export const oauth = auth;
