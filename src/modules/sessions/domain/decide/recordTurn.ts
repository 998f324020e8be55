// RecordTurn: a turn's messages and usage, numbered on from the transcript, within the transcript and token limits;
// a completed turn takes an automatic checkpoint when the service is set to.
import type { MessageInput, SessionStreamEvent, TurnStatus, TurnUsage } from '../../../../events/session/sessionEvents.js';
import { checkpointIdFor, requireLease, requireTranscriptRoom, requireWritable, storedMessages } from '../sessionRules.js';
import type { SessionState } from '../sessionState.js';
import { requireMatchingToolResults } from '../toolResultMatch.js';
import { requireSessionUsageRoom } from '../usageLimits.js';

export interface RecordTurn {
  type: 'RecordTurn';
  messages: MessageInput[];
  usage: TurnUsage;
  status: TurnStatus;
  now: string;
  autoCheckpoint?: boolean;
  maxTranscriptMessages?: number;
  maxSessionTokens?: number;
  /** The lease its start answered: the turn is recorded only while that start's turn is still the one in flight. */
  lease?: number;
  /** Refuse (400 TOOL_RESULT_MISMATCH) a turn whose tool results do not match calls. */
  strictToolResults?: boolean;
}

export function decideRecordTurn(command: RecordTurn, state: SessionState): SessionStreamEvent[] {
  requireWritable(state);
  if (command.lease !== undefined) requireLease(state, command.lease);
  requireTranscriptRoom(state, command.messages.length, command.maxTranscriptMessages);
  if (command.strictToolResults) requireMatchingToolResults(state, command.messages, command.status);
  requireSessionUsageRoom(state.sessionId, state.counters, command.usage, command.maxSessionTokens);
  const turnIndex = state.turnCount + 1;
  const revision = state.revision + 1;
  const checkpoint = command.autoCheckpoint && command.status === 'completed' ? { checkpointId: checkpointIdFor(revision) } : {};
  return [
    {
      type: 'TurnRecorded',
      data: {
        turnIndex,
        status: command.status,
        messages: storedMessages(command.messages, state.nextMessageIndex, turnIndex, command.now),
        usage: command.usage,
        at: command.now,
        slot: state.currentSlot,
        ...checkpoint,
      },
    },
  ];
}
