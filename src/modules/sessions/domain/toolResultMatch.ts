// Strict tool results (POST /turns with strictToolResults): a turn is refused, nothing written, when a tool result
// answers no open call, or a completed turn leaves one of its own calls unanswered: the histories every provider refuses.
import { ValidationError } from '../../../errors/ledgerError.js';
import type { JsonValue } from '../../../events/eventStore.js';
import type { MessageInput, TurnStatus } from '../../../events/session/sessionEvents.js';
import type { ExistingSession } from './sessionState.js';

export interface ToolResultMismatch {
  /** The message's place in the turn's `messages`. */
  message: number;
  toolCallId: string | null;
  reason: 'missing_tool_call_id' | 'no_matching_call' | 'malformed_tool_call' | 'unanswered_call';
}

const callId = (raw: JsonValue): string | undefined =>
  typeof raw === 'object' && raw !== null && !Array.isArray(raw) && typeof raw.id === 'string' && raw.id.length > 0 ? raw.id : undefined;

/** Calls of the current slot's live transcript that no result answers yet: a turn may answer them. */
function openCalls(state: ExistingSession): Set<string> {
  const open = new Set<string>();
  for (const chunk of state.transcript)
    for (const message of chunk) {
      if (message.deleted || message.slot !== state.currentSlot) continue;
      for (const raw of message.role === 'assistant' ? (message.toolCalls ?? []) : []) {
        const id = callId(raw);
        if (id !== undefined) open.add(id);
      }
      if (message.role === 'tool' && message.toolCallId !== undefined) open.delete(message.toolCallId);
    }
  return open;
}

export function toolResultMismatches(state: ExistingSession, messages: MessageInput[], status: TurnStatus): ToolResultMismatch[] {
  const open = openCalls(state);
  const ownCalls: Array<{ message: number; id: string }> = [];
  const mismatches: ToolResultMismatch[] = [];
  messages.forEach((message, at) => {
    if (message.role === 'assistant')
      for (const raw of message.toolCalls ?? []) {
        const id = callId(raw);
        if (id === undefined) mismatches.push({ message: at, toolCallId: null, reason: 'malformed_tool_call' });
        else {
          open.add(id);
          ownCalls.push({ message: at, id });
        }
      }
    if (message.role !== 'tool') return;
    if (message.toolCallId === undefined) mismatches.push({ message: at, toolCallId: null, reason: 'missing_tool_call_id' });
    else if (!open.delete(message.toolCallId)) mismatches.push({ message: at, toolCallId: message.toolCallId, reason: 'no_matching_call' });
  });
  // A failed or interrupted turn may stop between a call and its result; a completed one has every call answered.
  if (status === 'completed')
    for (const call of ownCalls) if (open.has(call.id)) mismatches.push({ message: call.message, toolCallId: call.id, reason: 'unanswered_call' });
  return mismatches;
}

export function requireMatchingToolResults(state: ExistingSession, messages: MessageInput[], status: TurnStatus): void {
  const mismatches = toolResultMismatches(state, messages, status);
  if (mismatches.length === 0) return;
  const first = mismatches[0]!;
  throw new ValidationError(
    `tool results do not match calls: messages[${first.message}] ${first.reason}${first.toolCallId === null ? '' : ` (${first.toolCallId})`}; nothing was written`,
    { sessionId: state.sessionId, mismatches },
    'TOOL_RESULT_MISMATCH',
  );
}
