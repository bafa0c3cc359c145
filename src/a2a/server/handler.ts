import { createHandler, type ServeHandler, type ServeOptions } from "../../serve/handler.js";
import type { A2AServeOptions } from "./options.js";

/** Options of `createA2AHandler`: serve's (agents, auth, store, log, limits, ...) plus the A2A ones. */
export interface A2AHandlerOptions extends Omit<ServeOptions, "page" | "a2a"> {
  a2a?: A2AServeOptions;
}

/**
 * A standalone A2A server: the same stored runs, auth and limits as `createHandler`, answering
 * only the agent cards and `/a2a/<agent>`; every other path is 404.
 */
export function createA2AHandler(options: A2AHandlerOptions): ServeHandler {
  const { a2a, ...serve } = options;
  const handler = createHandler({ ...serve, page: false, a2a: a2a ?? true });
  return {
    ...handler,
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/.well-known/agent-card.json" || path.startsWith("/a2a/")) return handler.fetch(request);
      return Response.json(
        {
          type: "urn:glassloop:problem:not_found",
          title: "Not found",
          status: 404,
          code: "not_found",
          detail: "no such route",
        },
        { status: 404, headers: { "content-type": "application/problem+json" } },
      );
    },
  };
}
