import { describe, expect, it } from "vitest";
import { ApprovalNotWaitingError, approvalTicket, bindsTo, waitingFor } from "./approval-rule.js";

const staging = { runId: "r1", toolCallId: "call_1", toolName: "deploy", arguments: '{"env":"staging"}' };
const production = { ...staging, arguments: '{"env":"production"}' };

describe("the one approval rule", () => {
  it("a decision binds to the run, the call id, the tool and the exact validated arguments", () => {
    expect(bindsTo(staging, { ...staging })).toBe(true);
    expect(bindsTo(staging, production)).toBe(false);
    expect(bindsTo(staging, { ...staging, runId: "r2" })).toBe(false);
    expect(bindsTo(staging, { ...staging, toolName: "destroy" })).toBe(false);
    expect(bindsTo(staging, { ...staging, toolCallId: "call_2" })).toBe(false);
    // Same meaning, other text: a different subject (the person saw one exact text).
    expect(bindsTo(staging, { ...staging, arguments: '{ "env": "staging" }' })).toBe(false);
  });

  it("each wait has its own ticket: the same call asked again, or other arguments, get another", () => {
    const first = approvalTicket(staging, 7);
    expect(approvalTicket(staging, 7)).toBe(first);
    expect(approvalTicket(staging, 12)).not.toBe(first);
    expect(approvalTicket(production, 7)).not.toBe(first);
    expect(approvalTicket({ ...staging, runId: "r2" }, 7)).not.toBe(first);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a decision with nothing waiting, or for other arguments than what waits, is refused", () => {
    const waiting = [{ ...production, ticket: approvalTicket(production, 3) }];
    expect(waitingFor("r1", waiting, "call_1")).toBe(waiting[0]);
    expect(waitingFor("r1", waiting, production)).toBe(waiting[0]);
    expect(() => waitingFor("r1", [], "call_1")).toThrow(ApprovalNotWaitingError);
    expect(() => waitingFor("r2", waiting, "call_1")).toThrow(ApprovalNotWaitingError);
    const refused = (() => {
      try {
        waitingFor("r1", waiting, staging);
      } catch (error) {
        return error as ApprovalNotWaitingError;
      }
    })();
    expect(refused?.code).toBe("approval_not_waiting");
    expect(refused?.message).toBe(
      'No call of run r1 waits for a decision as call_1 (deploy {"env":"staging"}); waiting: call_1 (deploy {"env":"production"}). A decision is for the call waiting now and is never kept for a later one.',
    );
    expect(refused?.waiting).toEqual([production]);
  });
});
