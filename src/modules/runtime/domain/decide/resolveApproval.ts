// ResolveApproval: the user's decision on a pending approval, once; the same decision again is a retry. Also on an
// interrupted session: the decision is recorded for the worker that resumes it.
import { ConflictError, NotFoundError } from '../../../../errors/ledgerError.js';
import type { ApprovalDecision, ApprovalMemory, Responder, RuntimeSessionEvent } from '../../../../events/runtime/runtimeSessionEvents.js';
import type { RuntimeSessionState } from '../runtimeSessionState.js';

export interface ResolveApproval {
  type: 'ResolveApproval';
  approvalId: string;
  decision: ApprovalDecision;
  remember: ApprovalMemory;
  now: string;
}

export function decideResolveApproval(command: ResolveApproval, state: RuntimeSessionState): RuntimeSessionEvent[] {
  return decideApproval(state, command.approvalId, command.decision, command.remember, 'user', command.now);
}

/** An approval resolved by the user or, in its report, by the worker. */
export function decideApproval(
  state: RuntimeSessionState,
  approvalId: string,
  decision: ApprovalDecision,
  remember: ApprovalMemory,
  by: Responder,
  now: string,
): RuntimeSessionEvent[] {
  if (state.pendingApprovals.some((approval) => approval.approvalId === approvalId)) {
    return [{ type: 'ApprovalResolved', data: { approvalId, decision, remember, by, at: now } }];
  }
  const resolved = state.resolvedApprovals.find((approval) => approval.approvalId === approvalId);
  // The same answer again is a retry; a different one comes too late.
  if (resolved && resolved.decision === decision && resolved.remember === remember) return [];
  if (resolved)
    throw new ConflictError('APPROVAL_ALREADY_RESOLVED', `approval ${approvalId} was already resolved (${resolved.decision})`, {
      approvalId,
      decision: resolved.decision,
      remember: resolved.remember,
    });
  throw new NotFoundError('APPROVAL_NOT_FOUND', `no pending approval ${approvalId} on this runtime session`, { approvalId });
}
