// Erasing a session stream with RolledBack v2 events: no personal content left, and the rewritten log folds to the same skeleton.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/events/eventStore.js';
import type { MessageInput, SessionStreamEvent } from '../../src/events/session/sessionEvents.js';
import { canonicalJson } from '../../src/events/streamStateStore.js';
import { upcastEvent } from '../../src/events/upcasting/upcastingEventStore.js';
import { ERASED_TEXT, newErasureContext } from '../../src/modules/erasure/domain/erasureContext.js';
import { redactWith } from '../../src/modules/erasure/domain/redactors.js';
import { sessionRedactors } from '../../src/modules/erasure/domain/redactSessionEvent.js';
import { toArray } from '../../src/modules/sessions/domain/chunkedList.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { decideSession, evolveSession, initialSessionState, type SessionCommand, type SessionState } from '../../src/modules/sessions/domain/sessionDecider.js';
import { timelineOf } from '../../src/modules/sessions/domain/sessionState.js';

const SECRET = 'alice-secret-4711';
const source = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '12345' });
let seconds = 0;
const now = () => new Date(Date.parse('2026-06-16T09:00:00.000Z') + ++seconds * 1000).toISOString();
const said = (text: string): MessageInput[] => [
  { role: 'user', content: `${SECRET} ${text}`, name: 'Alice', metadata: { from: SECRET } },
  { role: 'assistant', content: [{ type: 'text', text: `re ${SECRET}` }] },
];
const fold = (events: readonly SessionStreamEvent[]) => events.reduce((state, event) => evolveSession(state, canonicalJson(event)), initialSessionState());

function history(): SessionStreamEvent[] {
  const events: SessionStreamEvent[] = [];
  let state: SessionState = initialSessionState();
  const run = (command: SessionCommand) => {
    const decided = decideSession(command, state);
    events.push(...decided);
    state = decided.reduce((folded, event) => evolveSession(folded, canonicalJson(event)), state);
  };
  const turn = (text: string) =>
    run({
      type: 'RecordTurn',
      messages: said(text),
      usage: { inputTokens: 3, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, lastPromptTokens: null, costUsd: 0 },
      status: 'completed',
      autoCheckpoint: true,
      now: now(),
    });
  run({ type: 'CreateSession', sessionId: 's1', sessionKey: 'agent:main:telegram:dm:12345', origin: source, reason: 'new', now: now() });
  turn('one');
  run({ type: 'SetMemoryEntry', name: `phone-of-${SECRET}`, value: SECRET, metadata: {}, now: now() });
  turn('two');
  const checkpoint = state.checkpoints.at(-1)!.at(-1)!;
  const atCheckpoint = state;
  // The rewind soft-deletes turn two's messages: the rollback carries them again, with their words.
  run({ type: 'RewindTranscript', turns: 1, now: now() });
  run({ type: 'RollBack', checkpointId: checkpoint.checkpointId, restored: atCheckpoint, now: now() });
  turn('three');
  return events;
}

describe('erasure of RolledBack v2', () => {
  const context = newErasureContext('agent:main:telegram:dm:12345', undefined);
  const original = history();
  const erased = original.map(
    (event) => ({ type: event.type, data: redactWith(sessionRedactors, event.type, event.data as unknown as JsonObject, context) }) as SessionStreamEvent,
  );

  it('erases the messages a rollback carries and pseudonymises its memory, keeping the counts', () => {
    const [before, after] = [original, erased].map((events) => events.find((event) => event.type === 'RolledBack')!) as Array<
      Extract<SessionStreamEvent, { type: 'RolledBack' }>
    >;
    expect(before!.data.restored.transcript.following).toHaveLength(2);
    expect(JSON.stringify(before)).toContain(SECRET);
    expect(JSON.stringify(after)).not.toContain(SECRET);
    expect(after!.data.restored.transcript).toMatchObject({ kept: before!.data.restored.transcript.kept, liveCount: 4 });
    expect(after!.data.restored.transcript.following.map((message) => [message.index, message.role, message.content, message.deleted])).toEqual([
      [2, 'user', ERASED_TEXT, false],
      [3, 'assistant', ERASED_TEXT, false],
    ]);
    expect(after!.data.restored.memory.map((entry) => entry.name)).toEqual([context.pseudonym(`phone-of-${SECRET}`)]);
  });

  it('folds the rewritten log to the same skeleton: every message where it was, deleted as it was, its words gone', () => {
    const [state, erasedState] = [fold(original), fold(erased)];
    expect(JSON.stringify(erasedState)).not.toContain(SECRET);
    expect(toArray(erasedState.transcript).map((message) => [message.index, message.role, message.slot, message.deleted, message.content])).toEqual(
      toArray(state.transcript).map((message) => [message.index, message.role, message.slot, message.deleted, ERASED_TEXT]),
    );
    expect({ ...timelineOf(erasedState), transcript: undefined, memory: undefined }).toEqual({
      ...timelineOf(state),
      transcript: undefined,
      memory: undefined,
    });
  });

  it('erases a v1 RolledBack (the whole timeline) into the v2 shape', () => {
    const rolledBack = original.find((event) => event.type === 'RolledBack') as Extract<SessionStreamEvent, { type: 'RolledBack' }>;
    const v1Data = { ...rolledBack.data, restored: timelineOf(fold(original.slice(0, rolledBack.data.targetRevision + 1))) };
    const upcast = upcastEvent({
      id: 'e',
      streamName: 'session-s1',
      revision: 5,
      position: 6,
      type: 'RolledBack',
      data: v1Data as unknown as JsonObject,
      metadata: { schemaVersion: 1 },
      createdAt: new Date(0),
    });
    const redacted = redactWith(sessionRedactors, upcast.type, upcast.data, context) as unknown as Extract<SessionStreamEvent, { type: 'RolledBack' }>['data'];
    expect(JSON.stringify(redacted)).not.toContain(SECRET);
    expect(redacted.restored.transcript).toMatchObject({ kept: 0, liveCount: 4 });
    expect(redacted.restored.transcript.following.map((message) => message.content)).toEqual([ERASED_TEXT, ERASED_TEXT, ERASED_TEXT, ERASED_TEXT]);
  });
});
