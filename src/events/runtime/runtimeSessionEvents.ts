// Events of a `runtime-<runtime session id>` stream: one long-running agent thread (Codex, Claude Code) and its turns.
import { scopedStreamName } from '../streamScope.js';
import type { JsonObject } from '../eventStore.js';

export type ApprovalDecision = 'allow' | 'deny';
export type ApprovalMemory = 'none' | 'session' | 'conversation';
/** Who ended a wait: the worker reporting it, or a person answering through the API. */
export type Responder = 'worker' | 'user';
/**
 * service_restart: the service started while the turn was in flight; heartbeat_timeout: the worker went quiet;
 * conversation_reset: its conversation was reset with `force: true` while the turn ran.
 */
export type InterruptReason = 'service_restart' | 'heartbeat_timeout' | 'conversation_reset';

export type RuntimeSessionEvent =
  | { type: 'RuntimeSessionStarted'; data: { runtimeSessionId: string; provider: string; model: string; sessionKey: string; at: string } }
  | { type: 'TurnStarted'; data: { turnId: string; input: string; at: string } }
  | { type: 'RuntimeRunning'; data: { turnId: string; at: string } }
  | { type: 'RuntimeProgress'; data: { turnId: string; message: string | null; details: JsonObject; at: string } }
  | { type: 'QuestionAsked'; data: { turnId: string; questionId: string; details: JsonObject; at: string } }
  | { type: 'QuestionAnswered'; data: { questionId: string; answer: string; by: Responder; at: string } }
  | { type: 'ApprovalRequested'; data: { turnId: string; approvalId: string; details: JsonObject; at: string } }
  | { type: 'ApprovalResolved'; data: { approvalId: string; decision: ApprovalDecision; remember: ApprovalMemory; by: Responder; at: string } }
  | { type: 'TurnCompleted'; data: { turnId: string; output: JsonObject; at: string } }
  | { type: 'TurnFailed'; data: { turnId: string; error: string; at: string } }
  | { type: 'RuntimeInterrupted'; data: { turnId: string | null; reason: InterruptReason; error: string; previousState: string; at: string } }
  /**
   * A message queued with `mode: interrupt` while this turn ran: the worker is asked to stop and report `failed` or
   * `completed`. The turn stays in flight until it does (or the heartbeat timeout interrupts it).
   */
  | { type: 'InterruptRequested'; data: { turnId: string; messageId: string; at: string } };

export type RuntimeSessionEventType = RuntimeSessionEvent['type'];

/** `tenant` namespaces the stream (see streamScope.ts); without one it is the default tenant's. */
export function runtimeSessionStreamName(runtimeSessionId: string, tenant?: string): string {
  return scopedStreamName(`runtime-${runtimeSessionId}`, tenant);
}
