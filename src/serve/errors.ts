import { GlassloopError } from "../core/errors.js";

/** The problem codes the server answers with (RFC 9457 problem details, `code` field). */
export type ProblemCode =
  | "unauthorized"
  | "forbidden_origin"
  | "not_found"
  | "unknown_agent"
  | "method_not_allowed"
  | "conflict"
  | "payload_too_large"
  | "unsupported_media_type"
  | "invalid_request"
  | "rate_limited"
  | "too_many_runs"
  | "page_not_built"
  | "unavailable"
  | "draining"
  | "internal";

const TITLES: Record<ProblemCode, string> = {
  unauthorized: "Authentication required",
  forbidden_origin: "Origin not allowed",
  not_found: "Not found",
  unknown_agent: "Unknown agent",
  method_not_allowed: "Method not allowed",
  conflict: "Conflict",
  payload_too_large: "Payload too large",
  unsupported_media_type: "Unsupported media type",
  invalid_request: "Invalid request",
  rate_limited: "Too many requests",
  too_many_runs: "Too many runs",
  page_not_built: "Page not built",
  unavailable: "Service unavailable",
  draining: "Server draining",
  internal: "Internal error",
};

/** One field of a request that failed validation. */
export interface FieldError {
  path: string;
  message: string;
}

/** A request the server refuses; becomes a problem-details response (never a stack trace). */
export class ServeRequestError extends GlassloopError {
  readonly status: number;
  readonly problem: ProblemCode;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;
  constructor(
    status: number,
    problem: ProblemCode,
    detail: string,
    extra: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super("serve_request", detail);
    this.status = status;
    this.problem = problem;
    if (extra.errors) this.errors = extra.errors;
    if (extra.headers) this.headers = extra.headers;
  }
}

/** `createHandler` or `glassloop serve` was configured wrongly. */
export class ServeConfigError extends GlassloopError {
  constructor(message: string) {
    super("serve_config", message);
  }
}

/**
 * A write to the serve log from a process that no longer drives the run: another process took it
 * over (this one's lease ran out) or this one handed it over. Nothing was written; the writer
 * stops driving the run.
 */
export class LeaseLostError extends GlassloopError {
  readonly runId: string;
  constructor(runId: string) {
    super(
      "serve_lease_lost",
      `run ${runId} is driven by another process now; this process's write was refused`,
    );
    this.runId = runId;
  }
}

/** The problem-details response for `error`. */
export function problemResponse(
  error: ServeRequestError,
  extraHeaders: Record<string, string> = {},
): Response {
  const body = {
    type: `urn:glassloop:problem:${error.problem}`,
    title: TITLES[error.problem],
    status: error.status,
    code: error.problem,
    detail: error.message,
    ...(error.errors && { errors: error.errors }),
  };
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: {
      "content-type": "application/problem+json",
      "cache-control": "no-store",
      ...error.headers,
      ...extraHeaders,
    },
  });
}

/** Shorthands for the common refusals. */
export const refuse = {
  notFound: (what: string) => new ServeRequestError(404, "not_found", `${what} not found`),
  invalid: (detail: string, errors?: FieldError[]) =>
    new ServeRequestError(422, "invalid_request", detail, errors ? { errors } : {}),
  conflict: (detail: string) => new ServeRequestError(409, "conflict", detail),
};
