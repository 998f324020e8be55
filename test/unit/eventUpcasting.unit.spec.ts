// Event schema evolution as a specification: old versions read as the current shape, up-to-date events untouched.
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../src/events/eventStore.js';
import { EventSchemaHistory, eventSchemaHistory } from '../../src/events/upcasting/eventSchemaVersions.js';
import { upcastEvent } from '../../src/events/upcasting/upcastingEventStore.js';

const recorded = (type: string, data: RecordedEvent['data'], metadata: RecordedEvent['metadata'] = {}): RecordedEvent => ({
  id: '00000000-0000-4000-8000-000000000001',
  streamName: 'session-s1',
  revision: 3,
  position: 42,
  type,
  data,
  metadata,
  createdAt: new Date('2026-06-16T09:00:00Z'),
});

describe('event upcasting', () => {
  it('writes TranscriptRewound, RolledBack and GatewayPlatformsRegistered as version 2 and every other event as version 1', () => {
    expect(eventSchemaHistory.currentVersion('TranscriptRewound')).toBe(2);
    expect(eventSchemaHistory.currentVersion('RolledBack')).toBe(2);
    expect(eventSchemaHistory.currentVersion('GatewayPlatformsRegistered')).toBe(2);
    expect(eventSchemaHistory.currentVersion('TurnRecorded')).toBe(1);
    expect(eventSchemaHistory.currentVersion('NoSuchEvent')).toBe(1);
  });

  it('reads a v1 TranscriptRewound without its text copy and with the slot named, and says what was stored', () => {
    const v1 = recorded(
      'TranscriptRewound',
      { fromMessageIndex: 2, rewoundCount: 2, turnsUndone: 1, targetText: 'my secret question', at: '2026-06-16T09:00:00.000Z' },
      { schemaVersion: 1, actor: 'api' },
    );
    const current = upcastEvent(v1);
    expect(current.data).toEqual({ fromMessageIndex: 2, rewoundCount: 2, turnsUndone: 1, at: '2026-06-16T09:00:00.000Z', slot: 'main' });
    expect(current.metadata).toEqual({ schemaVersion: 2, storedSchemaVersion: 1, actor: 'api' });
    expect({ ...current, data: undefined, metadata: undefined }).toEqual({ ...v1, data: undefined, metadata: undefined });
    // The stored event is not changed in place: the cache and other readers may hold it.
    expect(v1.data.targetText).toBe('my secret question');
  });

  it('keeps the slot a v1 event named, and treats an event with no version as v1', () => {
    const unversioned = recorded('TranscriptRewound', { fromMessageIndex: 0, rewoundCount: 1, turnsUndone: 1, targetText: null, at: 'x', slot: 'tools' });
    expect(upcastEvent(unversioned).data).toEqual({ fromMessageIndex: 0, rewoundCount: 1, turnsUndone: 1, at: 'x', slot: 'tools' });
    expect(upcastEvent(unversioned).metadata.schemaVersion).toBe(2);
  });

  it('reads a v1 RolledBack (the whole restored timeline) as a change keeping none of the transcript, with its live count', () => {
    const message = (index: number, deleted: boolean) => ({ role: 'user', content: `m${index}`, index, turnIndex: 1, at: 'x', slot: 'main', deleted });
    const timeline = {
      turnCount: 1,
      nextMessageIndex: 3,
      counters: { inputTokens: 1 },
      memory: [],
      slots: [{ name: 'main', createdAt: 'x' }],
      currentSlot: 'main',
      lastSummaryTurn: null,
      headCheckpointId: 'cp-1',
    };
    const v1 = recorded(
      'RolledBack',
      {
        checkpointId: 'cp-1',
        targetRevision: 1,
        fromRevision: 5,
        fromTurnIndex: 3,
        restored: { ...timeline, transcript: [message(0, false), message(1, true), message(2, false)] },
        at: 'y',
      },
      { schemaVersion: 1 },
    );
    const current = upcastEvent(v1);
    expect(current.data).toEqual({
      checkpointId: 'cp-1',
      targetRevision: 1,
      fromRevision: 5,
      fromTurnIndex: 3,
      restored: { ...timeline, transcript: { kept: 0, following: [message(0, false), message(1, true), message(2, false)], liveCount: 2 } },
      at: 'y',
    });
    expect(current.metadata).toEqual({ schemaVersion: 2, storedSchemaVersion: 1 });
  });

  it('leaves RolledBack data already in the v2 shape alone when it was appended without a version', () => {
    const change = { kept: 4, following: [], liveCount: 4 };
    const unversioned = recorded('RolledBack', {
      checkpointId: 'cp-1',
      targetRevision: 1,
      fromRevision: 5,
      fromTurnIndex: 3,
      restored: { turnCount: 1, transcript: change },
      at: 'y',
    });
    expect(upcastEvent(unversioned).data).toEqual(unversioned.data);
  });

  it("reads a v1 GatewayPlatformsRegistered in Hermes' meaning of piiSafe: a platform registered raw is not redactable, one registered redacted is", () => {
    const entry = (platform: string, piiSafe: boolean) => ({ platform, displayName: null, homeChannel: null, piiSafe });
    const v1 = recorded('GatewayPlatformsRegistered', { platforms: [entry('discord', true), entry('telegram', false)], at: 'x' }, { schemaVersion: 1 });
    expect(upcastEvent(v1).data).toEqual({ platforms: [entry('discord', false), entry('telegram', true)], at: 'x' });
    const v2 = recorded('GatewayPlatformsRegistered', { platforms: [entry('discord', false)], at: 'x' }, { schemaVersion: 2 });
    expect(upcastEvent(v2).data).toEqual(v2.data);
  });

  it('returns current events and other types as they are', () => {
    const v2 = recorded('TranscriptRewound', { fromMessageIndex: 0, rewoundCount: 1, turnsUndone: 1, at: 'x', slot: 'main' }, { schemaVersion: 2 });
    expect(upcastEvent(v2)).toBe(v2);
    const turn = recorded('TurnRecorded', { turnIndex: 1 }, { schemaVersion: 1 });
    expect(upcastEvent(turn)).toBe(turn);
  });

  it('chains steps in order from the stored version', () => {
    const history = new EventSchemaHistory([
      { type: 'Thing', fromVersion: 2, upcast: ({ b, ...rest }) => ({ ...rest, c: `${String(b)}!` }) },
      { type: 'Thing', fromVersion: 1, upcast: ({ a, ...rest }) => ({ ...rest, b: a ?? null }) },
    ]);
    expect(history.currentVersion('Thing')).toBe(3);
    expect(upcastEvent(recorded('Thing', { a: 'x' }), history).data).toEqual({ c: 'x!' });
    expect(upcastEvent(recorded('Thing', { b: 'y' }, { schemaVersion: 2 }), history).data).toEqual({ c: 'y!' });
    expect(upcastEvent(recorded('Thing', { c: 'z' }, { schemaVersion: 3 }), history).data).toEqual({ c: 'z' });
  });

  it('refuses a history with a gap or two steps from one version', () => {
    expect(() => new EventSchemaHistory([{ type: 'Thing', fromVersion: 2, upcast: (data) => data }])).toThrow(/one chain/);
    expect(
      () =>
        new EventSchemaHistory([
          { type: 'Thing', fromVersion: 1, upcast: (data) => data },
          { type: 'Thing', fromVersion: 1, upcast: (data) => data },
        ]),
    ).toThrow(/two upcasters/);
  });
});
