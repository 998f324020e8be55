// The session decider: turns, counters, transcript rewind and rewrite, end and reopen.
import { ConflictError, NotFoundError } from '../../errors/ledgerError.js';
import type { Decider } from '../../events/decider.js';
import type { JsonValue } from '../../events/eventStore.js';
import type { MessageInput, SessionEndReason, SessionEvent, StoredMessage, TurnStatus, TurnUsage } from '../../events/session/sessionEvents.js';
import type { SessionSource } from './domain/sessionSource.js';

export interface SessionCounters {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  totalTokens: number;
  estimatedCostUsd: number;
  lastPromptTokens: number;
}

export interface TranscriptMessage extends StoredMessage {
  deleted: boolean;
}

export interface SessionState {
  status: 'absent' | 'active' | 'ended';
  sessionId: string | null;
  sessionKey: string | null;
  origin: SessionSource | null;
  createdAt: string | null;
  updatedAt: string | null;
  endedAt: string | null;
  endReason: SessionEndReason | null;
  turnCount: number;
  nextMessageIndex: number;
  counters: SessionCounters;
  transcript: TranscriptMessage[];
}

export const zeroCounters = (): SessionCounters => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  totalTokens: 0,
  estimatedCostUsd: 0,
  lastPromptTokens: 0,
});

export const initialSessionState = (): SessionState => ({
  status: 'absent',
  sessionId: null,
  sessionKey: null,
  origin: null,
  createdAt: null,
  updatedAt: null,
  endedAt: null,
  endReason: null,
  turnCount: 0,
  nextMessageIndex: 0,
  counters: zeroCounters(),
  transcript: [],
});

export type SessionCommand =
  | { type: 'CreateSession'; sessionId: string; sessionKey: string; origin: SessionSource; reason: string; now: string }
  | { type: 'RecordTurn'; messages: MessageInput[]; usage: TurnUsage; status: TurnStatus; now: string }
  | { type: 'RewindTranscript'; turns: number; now: string }
  | { type: 'RewriteTranscript'; messages: MessageInput[]; now: string }
  | { type: 'EndSession'; reason: SessionEndReason; now: string }
  | { type: 'ReopenSession'; now: string };

// Rounding to micro-dollars keeps float sums from drifting differently in a replay.
const addCost = (a: number, b: number) => Math.round((a + b) * 1e6) / 1e6;

function addUsage(counters: SessionCounters, usage: TurnUsage): SessionCounters {
  const inputTokens = counters.inputTokens + usage.inputTokens;
  const outputTokens = counters.outputTokens + usage.outputTokens;
  const cacheReadTokens = counters.cacheReadTokens + usage.cacheReadTokens;
  const cacheWriteTokens = counters.cacheWriteTokens + usage.cacheWriteTokens;
  return {
    inputTokens,
    outputTokens,
    cacheReadTokens,
    cacheWriteTokens,
    totalTokens: inputTokens + outputTokens + cacheReadTokens + cacheWriteTokens,
    estimatedCostUsd: addCost(counters.estimatedCostUsd, usage.costUsd),
    lastPromptTokens: usage.lastPromptTokens ?? counters.lastPromptTokens,
  };
}

export function evolveSession(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'SessionCreated':
      return {
        ...initialSessionState(),
        status: 'active',
        sessionId: event.data.sessionId,
        sessionKey: event.data.sessionKey,
        origin: event.data.origin,
        createdAt: event.data.at,
        updatedAt: event.data.at,
      };
    case 'TurnRecorded':
      return {
        ...state,
        turnCount: Math.max(state.turnCount, event.data.turnIndex),
        nextMessageIndex: state.nextMessageIndex + event.data.messages.length,
        counters: addUsage(state.counters, event.data.usage),
        transcript: [...state.transcript, ...event.data.messages.map((message) => ({ ...message, deleted: false }))],
        updatedAt: event.data.at,
      };
    case 'TranscriptRewound':
      return {
        ...state,
        transcript: state.transcript.map((message) => (message.index >= event.data.fromMessageIndex ? { ...message, deleted: true } : message)),
        updatedAt: event.data.at,
      };
    case 'TranscriptRewritten':
      return {
        ...state,
        nextMessageIndex: state.nextMessageIndex + event.data.messages.length,
        transcript: [...state.transcript.map((message) => ({ ...message, deleted: true })), ...event.data.messages.map((message) => ({ ...message, deleted: false }))],
        updatedAt: event.data.at,
      };
    case 'SessionEnded':
      return { ...state, status: 'ended', endedAt: event.data.at, endReason: event.data.reason, updatedAt: event.data.at };
    case 'SessionReopened':
      return { ...state, status: 'active', endedAt: null, endReason: null, updatedAt: event.data.at };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

export function sessionNotFound(sessionId: string): NotFoundError {
  return new NotFoundError('SESSION_NOT_FOUND', `no session ${sessionId}`, { sessionId });
}

function requireWritable(state: SessionState): void {
  if (state.status === 'absent') throw sessionNotFound(state.sessionId ?? 'unknown');
  if (state.status === 'ended') {
    throw new ConflictError('SESSION_ENDED', `session ${state.sessionId} has ended (${state.endReason}); resolve the conversation for its current session`, {
      sessionId: state.sessionId,
      endReason: state.endReason,
    });
  }
}

function store(messages: MessageInput[], firstIndex: number, turnIndex: number, at: string): StoredMessage[] {
  return messages.map((message, offset) => ({ ...message, index: firstIndex + offset, turnIndex, at }));
}

function textOf(content: JsonValue): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = content.flatMap((part) => (part && typeof part === 'object' && !Array.isArray(part) && typeof part.text === 'string' ? [part.text] : []));
    return parts.length > 0 ? parts.join('\n') : null;
  }
  return null;
}

export function decideSession(command: SessionCommand, state: SessionState): SessionEvent[] {
  switch (command.type) {
    case 'CreateSession':
      if (state.status !== 'absent') return [];
      return [{ type: 'SessionCreated', data: { sessionId: command.sessionId, sessionKey: command.sessionKey, origin: command.origin, reason: command.reason, at: command.now } }];
    case 'RecordTurn': {
      requireWritable(state);
      const turnIndex = state.turnCount + 1;
      return [
        {
          type: 'TurnRecorded',
          data: { turnIndex, status: command.status, messages: store(command.messages, state.nextMessageIndex, turnIndex, command.now), usage: command.usage, at: command.now },
        },
      ];
    }
    case 'RewindTranscript': {
      requireWritable(state);
      const live = state.transcript.filter((message) => !message.deleted);
      const userMessages = live.filter((message) => message.role === 'user');
      if (userMessages.length === 0) return [];
      // n < 1 counts as 1; more turns than exist clamp to the oldest user turn.
      const turnsUndone = Math.min(Math.max(1, Math.floor(command.turns)), userMessages.length);
      const target = userMessages[userMessages.length - turnsUndone]!;
      const rewoundCount = live.filter((message) => message.index >= target.index).length;
      return [{ type: 'TranscriptRewound', data: { fromMessageIndex: target.index, rewoundCount, turnsUndone, targetText: textOf(target.content), at: command.now } }];
    }
    case 'RewriteTranscript': {
      requireWritable(state);
      const replacedCount = state.transcript.filter((message) => !message.deleted).length;
      return [{ type: 'TranscriptRewritten', data: { messages: store(command.messages, state.nextMessageIndex, state.turnCount, command.now), replacedCount, at: command.now } }];
    }
    case 'EndSession':
      if (state.status !== 'active') return [];
      return [{ type: 'SessionEnded', data: { reason: command.reason, at: command.now } }];
    case 'ReopenSession':
      if (state.status !== 'ended') return [];
      return [{ type: 'SessionReopened', data: { reason: 'switch', at: command.now } }];
    default: {
      const unknown: never = command;
      return unknown;
    }
  }
}

export const sessionDecider: Decider<SessionState, SessionCommand, SessionEvent> = {
  initialState: initialSessionState,
  evolve: evolveSession,
  decide: decideSession,
};
