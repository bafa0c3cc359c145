import { refuse } from "./errors.js";
import { isQuestion } from "./questions.js";
import type { ApprovalRecord, RunRecord, ServeLog } from "./serve-log.js";

/** One decision on an approval the server handed out. */
export interface Decision {
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/**
 * The checks every set of decisions passes before anything acts on it, whoever runs the run: each
 * names an approval of one run of `principal` (of `chatId` when given), or the whole set is a 404
 * (a foreign id looks exactly like a missing one); the run waits now and none is decided (else
 * 409); every waiting call is decided once (else 400). Returns the run and each decision's record.
 */
export async function checkDecisions(
  log: ServeLog,
  principal: string,
  decisions: readonly Decision[],
  chatId?: string,
): Promise<{ run: RunRecord; records: ApprovalRecord[] }> {
  if (decisions.length === 0) throw refuse.invalid("no approval decisions were sent");
  const found = await Promise.all(decisions.map((d) => log.getApproval(d.approvalId)));
  const runIds = new Set(found.map((r) => r?.runId));
  const runId = found[0]?.runId;
  const run = runId === undefined ? undefined : await log.getRun(runId);
  const records = found.filter((r): r is ApprovalRecord => r !== undefined);
  if (
    !run ||
    run.principal !== principal ||
    runIds.size !== 1 ||
    records.length !== found.length ||
    records.some(isQuestion)
  )
    throw refuse.notFound("approval");
  if (chatId !== undefined && run.chatId !== chatId) throw refuse.notFound("approval");
  if (run.status !== "awaiting_approval" || records.some((r) => r.decided))
    throw refuse.conflict("these approvals were already decided, or the run is no longer waiting");
  const open = await log.openApprovals(run.runId);
  const decided = new Set(decisions.map((d) => d.approvalId));
  const missing = open.filter((a) => !decided.has(a.approvalId));
  if (missing.length > 0 || decided.size !== decisions.length)
    throw refuse.invalid(
      `every waiting call must be decided once: missing ${missing.map((a) => `${a.toolName} (${a.approvalId})`).join(", ") || "none"}`,
    );
  return { run, records };
}
