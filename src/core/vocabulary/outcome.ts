import type { FilePart, ImagePart } from "./messages.js";

/**
 * One tool outcome for every room: what the environment returns, what approval or a recovered
 * checkpoint decides instead of running, what the store keeps and what the turn records.
 */

/** What became of a tool call. */
export type ToolOutcomeStatus =
  | "ok"
  | "error"
  | "invalid"
  | "timeout"
  | "aborted"
  | "repeated"
  | "not_executed"
  /** The process died while the call ran and the tool is not idempotent, so it was not run again. */
  | "interrupted"
  /** A person did not approve the call (`needsApproval`). */
  | "rejected";

/** What became of one tool call: the content the model will see, plus what only code and traces see. */
export interface ToolOutcome {
  status: ToolOutcomeStatus;
  /** The content sent to the model. */
  content: string;
  /** The tool's return value when `status` is "ok" (a terminal tool's output; must be JSON to be stored). */
  value?: unknown;
  /** Images the tool returned, checked, sent to the model beside `content` (and kept by the store). */
  images?: ImagePart[];
  /** Documents (PDFs) the tool returned, checked, sent beside `content` (and kept by the store). */
  files?: FilePart[];
  /** Details for events and traces only; never sent to the model and never stored. */
  errorDetail?: string;
  /** How long the tool ran; absent for outcomes decided without running it (approval, recovery, a skip). */
  durationMs?: number;
}
