/**
 * Every `code` a GlassloopError can carry, closed so a `switch` over it is checked. A new error
 * class adds its code here; the compiler then points at every switch that must learn it.
 */

/** Codes of errors that end a run (RunError and its subclasses). */
export type RunErrorCode =
  | "budget_exceeded"
  | "loop_detected"
  | "model_behavior"
  | "aborted"
  | "awaiting_approval"
  /** A tool asked the person a question and the run paused for the answer (InputRequiredError). */
  | "awaiting_input"
  /** The reflection evaluator rejected the answer more often than `maxRounds` allows. */
  | "rejected"
  /** A guardrail stopped the run (GuardrailTripwireError). */
  | "guardrail_tripwire"
  /** A guardrail threw or answered something that is no verdict: the run stops (guardrails fail closed). */
  | "guardrail_failed"
  /** An exception the loop did not expect; the cause is attached. */
  | "internal"
  /** A model call failed with an error that has no code of its own. */
  | "model_error";

/** Codes of provider and model-call failures (ProviderError, timeouts, the local engine). */
export type ModelErrorCode =
  | "provider_error"
  | "authentication"
  | "rate_limited"
  | "context_overflow"
  | "content_blocked"
  | "provider_protocol"
  | "stream_incomplete"
  | "network"
  | "request_timeout"
  | "stream_idle_timeout"
  | "deadline_exceeded"
  | "response_too_large"
  /** Every model of a fallback chain failed (or had its circuit breaker open). */
  | "fallback_exhausted"
  /** The request is larger than the model's context window, found before sending. */
  | "context_window_exceeded"
  /** A cloud provider's credentials are missing, expired or unusable (AWS, Azure Entra ID, Google). */
  | "cloud_credentials"
  | "local_engine_missing"
  | "local_engine_unavailable"
  | "local_model_not_found"
  | "local_model_load_failed"
  | "local_download_failed"
  | "local_bad_history"
  | "local_generation_failed";

/** Codes of the store (StoreError and its subclasses). */
export type StoreErrorCode =
  | "db_open"
  | "db_locked"
  | "db_corrupt"
  | "db_error"
  | "schema_too_new"
  | "sqlite_binding_missing"
  | "unknown_run"
  | "unknown_session"
  | "run_not_resumable"
  | "run_ended"
  | "checkpoint_mismatch"
  /** A write from a process whose claim on the run another process took over (a stale fencing token). */
  | "run_fenced"
  | "session_busy"
  | "session_conflict"
  | "session_exists"
  | "session_not_locked";

/** Codes of the surfaces around the loop: traces, replay, evals, MCP, the CLI, test doubles. */
export type SurfaceErrorCode =
  | "trace_not_found"
  | "trace_invalid"
  | "viewer_not_built"
  | "replay_divergence"
  | "eval_budget"
  | "eval_replay_diverged"
  | "eval_result_invalid"
  | "dataset_invalid"
  | "mcp_connect"
  | "mcp_tool_list"
  /** OAuth with a remote MCP server failed (discovery, registration, consent, token exchange). */
  | "mcp_auth"
  | "no_model"
  | "usage"
  | "script_exhausted"
  /** A worker was started with the executor id a live worker holds (glassloop/scale). */
  | "worker_id_taken"
  /** A worker module, an agent name or a run the scale-out client was asked about is unknown. */
  | "scale_unknown"
  /** An HTTP request to `glassloop/serve` was refused (its problem details say why). */
  | "serve_request"
  /** `glassloop/serve` was configured wrongly (no agents, a bad token list, a bad limit). */
  | "serve_config"
  /** A serve process wrote to a run another process drives now (it lost or handed over its lease): refused. */
  | "serve_lease_lost"
  /** A JSON-RPC request to glassloop's A2A server was refused (its error object says why). */
  | "a2a_request"
  /** A remote A2A agent answered something glassloop does not accept, or ran past a bound. */
  | "a2a_peer";

/** Every code a GlassloopError can carry. */
export type ErrorCode =
  | RunErrorCode
  | ModelErrorCode
  | StoreErrorCode
  | SurfaceErrorCode
  | "config"
  /** A decision named a call that does not wait for one (features/approval/approval-rule.ts). */
  | "approval_not_waiting"
  /** Answers for a scale-out run where no question waits now (scale/questions.ts). */
  | "question_not_waiting"
  /** Bytes from elsewhere (a server, a recording, a dataset) went over their cap (core/read-caps.ts). */
  | "input_too_large"
  /** A path written in someone else's file pointed outside the folder it must stay in. */
  | "path_outside"
  /** A file to read was a FIFO, a device or (where refused) a symlink. */
  | "not_a_file"
  | "tool_error"
  | "missing_dependency";
