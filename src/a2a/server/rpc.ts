/**
 * JSON-RPC 2.0 for the A2A server: the envelope, the error a method throws, and how a refusal of
 * the serve layer (not found, busy, too large) becomes A2A's error code.
 */
import { z } from "zod";
import { GlassloopError } from "../../core/errors.js";
import { ServeRequestError } from "../../serve/errors.js";
import { RPC } from "../wire.js";

/** A JSON-RPC request: a method, its params, and the id its answer echoes. */
export const envelope = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string().max(200), z.number(), z.null()]).optional(),
  method: z.string().min(1).max(100),
  params: z.unknown().optional(),
});

/** The id of a JSON-RPC request. */
export type RpcId = string | number | null;

/** A request the A2A server refuses with a JSON-RPC error (and, for some, an HTTP status). */
export class A2ARequestError extends GlassloopError {
  readonly rpcCode: number;
  readonly httpStatus: number;
  readonly headers?: Record<string, string>;
  readonly data?: unknown;
  constructor(
    rpcCode: number,
    message: string,
    extra: { httpStatus?: number; headers?: Record<string, string>; data?: unknown } = {},
  ) {
    super("a2a_request", message);
    this.rpcCode = rpcCode;
    this.httpStatus = extra.httpStatus ?? 200;
    if (extra.headers) this.headers = extra.headers;
    if (extra.data !== undefined) this.data = extra.data;
  }
}

/** Shorthands for A2A's errors. */
export const rpcError = {
  taskNotFound: (id: string) => new A2ARequestError(RPC.taskNotFound, `task not found: ${id}`),
  invalidParams: (message: string, data?: unknown) =>
    new A2ARequestError(RPC.invalidParams, message, data === undefined ? {} : { data }),
  unsupported: (message: string) => new A2ARequestError(RPC.unsupportedOperation, message),
};

/** A serve refusal in A2A's terms: unknown or foreign ids look the same (task not found). */
export function fromServeError(error: ServeRequestError): A2ARequestError {
  const headers = error.headers ? { headers: error.headers } : {};
  switch (error.status) {
    case 404:
      return new A2ARequestError(RPC.taskNotFound, error.message);
    case 409:
      return new A2ARequestError(RPC.unsupportedOperation, error.message);
    case 413:
      return new A2ARequestError(RPC.invalidRequest, error.message, { httpStatus: 413 });
    case 415:
      return new A2ARequestError(RPC.invalidRequest, error.message, { httpStatus: 415 });
    case 422:
      return new A2ARequestError(
        RPC.invalidParams,
        error.message,
        error.errors ? { data: error.errors } : {},
      );
    case 429:
      return new A2ARequestError(RPC.serverError, error.message, {
        httpStatus: 429,
        ...headers,
        data: { code: error.problem },
      });
    default:
      return new A2ARequestError(RPC.internal, error.message, { httpStatus: error.status });
  }
}

/** The JSON-RPC error response for `error` (anything unexpected is an internal error without details). */
export function errorResponse(id: RpcId, error: unknown): Response {
  const known =
    error instanceof A2ARequestError
      ? error
      : error instanceof ServeRequestError
        ? fromServeError(error)
        : undefined;
  if (!known) console.error("glassloop a2a:", error);
  const refusal = known ?? new A2ARequestError(RPC.internal, "the server failed to answer this request");
  const body = {
    jsonrpc: "2.0",
    id,
    error: {
      code: refusal.rpcCode,
      message: refusal.message,
      ...(refusal.data !== undefined && { data: refusal.data }),
    },
  };
  return Response.json(body, {
    status: refusal.httpStatus,
    headers: { "cache-control": "no-store", ...refusal.headers },
  });
}

/** How a call came: JSON-RPC, or spec 1.0's HTTP+JSON binding. */
export type Binding = "jsonrpc" | "rest";

/** A method's answer: in a JSON-RPC envelope, or bare for HTTP+JSON. */
export function resultResponse(to: { id: RpcId; binding: Binding }, result: unknown): Response {
  const body = to.binding === "rest" ? result : { jsonrpc: "2.0", id: to.id, result };
  return Response.json(body, { headers: { "cache-control": "no-store" } });
}
