/**
 * What every A2A call passes before its method runs, in either binding: the caller's credentials
 * (HTTP 401 with `WWW-Authenticate` without them), serve's per-caller rate limit, an agent that
 * is served, and a JSON body under serve's byte cap.
 */
import { ServeRequestError } from "../../serve/errors.js";
import { RateLimiter, readJsonBody } from "../../serve/limits.js";
import type { ServeContext } from "../../serve/serve-context.js";
import { RPC } from "../wire.js";
import { A2ARequestError } from "./rpc.js";

/** The checks of one server (one rate limiter for all its A2A calls). */
export interface Gate {
  /** The caller's principal id, once it may call `agent`. */
  admit(request: Request, agent: string): Promise<string>;
  /** The request's JSON body, capped; unreadable JSON is a parse error. */
  body(request: Request): Promise<unknown>;
}

/** The gate of the A2A routes over `ctx`. */
export function gateOf(ctx: ServeContext): Gate {
  const rate = new RateLimiter(ctx.limits.requestsPerMinute);
  return {
    async admit(request, agent) {
      const principal = await ctx.auth.principal(request);
      if (!principal)
        throw new A2ARequestError(RPC.serverError, "a valid bearer token is required", {
          httpStatus: 401,
          headers: { "www-authenticate": 'Bearer realm="glassloop"' },
        });
      rate.take(principal.id);
      if (!ctx.agents.has(agent))
        throw new A2ARequestError(RPC.methodNotFound, `no agent named ${JSON.stringify(agent)}`, {
          httpStatus: 404,
        });
      return principal.id;
    },
    async body(request) {
      try {
        return await readJsonBody(request, ctx.limits.maxBodyBytes);
      } catch (error) {
        if (error instanceof ServeRequestError && error.status === 422)
          throw new A2ARequestError(RPC.parseError, error.message);
        throw error;
      }
    },
  };
}
