// Events of a `session-<session id>` stream: turns, transcript, counters, and the session's own lifecycle.
import type { JsonObject, JsonValue } from '../eventStore.js';
import type { SessionSource } from '../../modules/sessions/domain/sessionSource.js';

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';
export type TurnStatus = 'completed' | 'failed' | 'interrupted';
/** `superseded`: found still open after its conversation had moved on (a write cut short by a crash), closed on sight. */
export type SessionEndReason = 'reset' | 'switch' | 'suspended' | 'resume_expired' | 'forced' | 'superseded';

export interface MessageInput {
  role: MessageRole;
  content: JsonValue;
  name?: string;
  toolCallId?: string;
  toolCalls?: JsonValue[];
  metadata?: JsonObject;
}

/** A message as kept in the transcript: numbered within its session, never physically removed. */
export interface StoredMessage extends MessageInput {
  index: number;
  turnIndex: number;
  at: string;
}

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** The prompt size the model last reported; replaces, does not add. */
  lastPromptTokens: number | null;
  costUsd: number;
}

export type SessionEvent =
  | { type: 'SessionCreated'; data: { sessionId: string; sessionKey: string; origin: SessionSource; reason: string; at: string } }
  | { type: 'TurnRecorded'; data: { turnIndex: number; status: TurnStatus; messages: StoredMessage[]; usage: TurnUsage; at: string } }
  | { type: 'TranscriptRewound'; data: { fromMessageIndex: number; rewoundCount: number; turnsUndone: number; targetText: string | null; at: string } }
  | { type: 'TranscriptRewritten'; data: { messages: StoredMessage[]; replacedCount: number; at: string } }
  | { type: 'SessionEnded'; data: { reason: SessionEndReason; at: string } }
  | { type: 'SessionReopened'; data: { reason: 'switch'; at: string } };

export type SessionEventType = SessionEvent['type'];

export function sessionStreamName(sessionId: string): string {
  return `session-${sessionId}`;
}
