// What of a session stream's events an erasure keeps: turns as roles, numbers, times and usage; checkpoints, slots, the tree, item positions.
// Events with anything personal are rebuilt field by field, not copied and patched: a field added later is dropped
// until someone lists it here, which errs towards erasing too much rather than too little.
import type { SessionStreamEvent } from '../../../events/session/sessionEvents.js';
import { erasedMessage, erasedRestoredTimeline, erasedSource, erasedTextOrNull, erasedTimeline } from './erasedValues.js';
import { optional } from './optionalField.js';
import { type Redactors, unchanged } from './redactors.js';

export const sessionRedactors: Redactors<SessionStreamEvent> = {
  SessionCreated: (data, context) => ({
    sessionId: data.sessionId,
    sessionKey: context.pseudonymousKey,
    origin: erasedSource(data.origin),
    reason: data.reason,
    at: data.at,
    ...optional('parentSessionId', data.parentSessionId),
    ...optional('agentName', data.agentName),
    // A child's metadata is whatever its creator wanted to remember about it.
    ...(data.metadata === undefined ? {} : { metadata: {} }),
    ...optional('forkOf', data.forkOf),
    ...(data.startingState === undefined ? {} : { startingState: erasedTimeline(data.startingState, context) }),
    ...optional('namespace', data.namespace),
    // A client's own id for the session may name the person (a user id, an address).
    ...(data.externalId === undefined ? {} : { externalId: context.pseudonym(data.externalId) }),
  }),
  TurnRecorded: (data) => ({
    turnIndex: data.turnIndex,
    status: data.status,
    messages: data.messages.map(erasedMessage),
    usage: data.usage,
    at: data.at,
    ...optional('slot', data.slot),
    ...optional('checkpointId', data.checkpointId),
  }),
  LastPromptTokensSet: unchanged,
  TranscriptRewound: unchanged,
  TranscriptRewritten: (data) => ({
    messages: data.messages.map(erasedMessage),
    replacedCount: data.replacedCount,
    at: data.at,
    ...optional('slot', data.slot),
  }),
  SessionEnded: unchanged,
  SessionReopened: unchanged,
  StatusNoted: (data) => ({ message: erasedMessage(data.message), reason: data.reason, at: data.at, ...optional('slot', data.slot) }),
  TurnStarted: unchanged,
  TurnAbandoned: unchanged,
  CheckpointCreated: (data) => ({ checkpointId: data.checkpointId, label: erasedTextOrNull(data.label), turnIndex: data.turnIndex, at: data.at }),
  CheckpointsExpired: unchanged,
  RolledBack: (data, context) => ({
    checkpointId: data.checkpointId,
    targetRevision: data.targetRevision,
    fromRevision: data.fromRevision,
    fromTurnIndex: data.fromTurnIndex,
    restored: erasedRestoredTimeline(data.restored, context),
    at: data.at,
  }),
  MemoryEntrySet: (data, context) => ({ name: context.pseudonym(data.name), value: null, metadata: {}, at: data.at }),
  MemoryEntryRemoved: (data, context) => ({ name: context.pseudonym(data.name), at: data.at }),
  SlotCreated: unchanged,
  SlotSwitched: unchanged,
  ChildSessionCreated: unchanged,
  SessionDestroyed: unchanged,
  // An item is whatever the agent said, read or ran: nothing of it stays. Its id may be the client's, so it is a pseudonym.
  ItemAppended: (data, context) => ({ itemId: context.pseudonym(data.itemId), position: data.position, occurrence: data.occurrence, item: {}, at: data.at }),
  ItemPopped: (data, context) => ({ ...data, itemId: context.pseudonym(data.itemId) }),
  ItemsCleared: unchanged,
};
