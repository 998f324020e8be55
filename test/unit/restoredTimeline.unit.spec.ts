// RolledBack v2's transcript change: what a rollback keeps of the transcript it leaves, and a fold of it equal to installing the whole timeline.
import { describe, expect, it } from 'vitest';
import type { EventMetadata, JsonObject } from '../../src/events/eventStore.js';
import type { MessageInput, SessionStreamEvent } from '../../src/events/session/sessionEvents.js';
import { canonicalJson } from '../../src/events/streamStateStore.js';
import { eventSchemaHistory } from '../../src/events/upcasting/eventSchemaVersions.js';
import { upcastEvent } from '../../src/events/upcasting/upcastingEventStore.js';
import { sharedLeadingCount, toArray } from '../../src/modules/sessions/domain/chunkedList.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { restoredTimelineOf } from '../../src/modules/sessions/domain/restoredTimeline.js';
import { decideSession, evolveSession, initialSessionState, type SessionCommand, type SessionState } from '../../src/modules/sessions/domain/sessionDecider.js';
import { installTimeline, timelineOf } from '../../src/modules/sessions/domain/sessionState.js';
import { deepFreeze } from '../support/propertyTesting.js';

const source = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '12345' });
let seconds = 0;
const now = () => new Date(Date.parse('2026-06-16T09:00:00.000Z') + ++seconds * 1000).toISOString();
const usage = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, lastPromptTokens: null, costUsd: 0.001 };
const exchange = (text: string): MessageInput[] => [
  { role: 'user', content: [{ type: 'text', text }], metadata: { z: 1, a: { y: 2, b: 3 } } },
  { role: 'assistant', content: `re: ${text}` },
];

/** A session and its history, driven through the decider and folded as StreamStateStore folds (events read back canonical). */
class Session {
  history: SessionStreamEvent[] = [];
  state: SessionState = initialSessionState();

  constructor() {
    this.run({ type: 'CreateSession', sessionId: 's1', sessionKey: 'agent:main:telegram:dm:12345', origin: source, reason: 'new', now: now() });
  }

  run(command: SessionCommand): SessionStreamEvent[] {
    const events = deepFreeze(decideSession(command, this.state));
    this.history.push(...events);
    this.state = deepFreeze(events.reduce((state, event) => evolveSession(state, canonicalJson(event)), this.state));
    return events;
  }

  turns(count: number): this {
    for (let turn = 0; turn < count; turn++)
      this.run({ type: 'RecordTurn', messages: exchange(`turn ${this.state.turnCount + 1}`), usage, status: 'completed', autoCheckpoint: true, now: now() });
    return this;
  }

  /** The state at `revision`, folded afresh from the history: it shares nothing with the current one. */
  replayedAt(revision: number): SessionState {
    return this.history.slice(0, revision + 1).reduce((state, event) => evolveSession(state, canonicalJson(event)), initialSessionState());
  }

  newestCheckpoint(): { checkpointId: string; revision: number } {
    return this.state.checkpoints.at(-1)!.at(-1)!;
  }

  /** Rolls back to the checkpoint with `restored` as its state; answers the event and checks the fold against the whole timeline. */
  rollBack(checkpoint: { checkpointId: string; revision: number }, restored: SessionState): Extract<SessionStreamEvent, { type: 'RolledBack' }> {
    const before = this.state;
    const [event] = this.run({ type: 'RollBack', checkpointId: checkpoint.checkpointId, restored, now: now() }) as [
      Extract<SessionStreamEvent, { type: 'RolledBack' }>,
    ];
    // The fold of the change equals installing the checkpoint's whole timeline, as v1 did, byte for byte (and marks
    // the item history as shrunk there: items appended after the checkpoint left it).
    const installed = {
      ...installTimeline({ ...before, revision: before.revision + 1 }, canonicalJson(timelineOf(this.replayedAt(checkpoint.revision)))),
      itemsShrunkAt: before.revision + 1,
      updatedAt: event.data.at,
    };
    expect(JSON.stringify(this.state)).toBe(JSON.stringify(installed));
    expect(JSON.stringify(timelineOf(this.state))).toBe(JSON.stringify(timelineOf(this.replayedAt(checkpoint.revision))));
    return event;
  }
}

const contents = (messages: ReadonlyArray<{ role: string; index: number; deleted: boolean }>) =>
  messages.map((message) => [message.index, message.role, message.deleted]);

describe('RolledBack transcript change', () => {
  it('undoing a rewind keeps every message before the first one the rewind soft-deleted, and carries those again live', () => {
    const session = new Session().turns(300);
    const checkpoint = session.newestCheckpoint();
    const atCheckpoint = session.state;
    session.run({ type: 'RewindTranscript', turns: 2, now: now() });
    const event = session.rollBack(checkpoint, atCheckpoint);
    expect(event.data.restored.transcript.kept).toBe(596);
    expect(contents(event.data.restored.transcript.following)).toEqual([
      [596, 'user', false],
      [597, 'assistant', false],
      [598, 'user', false],
      [599, 'assistant', false],
    ]);
    expect(event.data.restored.transcript.liveCount).toBe(600);
    expect(event.data.restored).toMatchObject({ turnCount: 300, nextMessageIndex: 600, headCheckpointId: checkpoint.checkpointId });
  });

  it('finds the same change from a state folded afresh, comparing messages instead of sharing them', () => {
    const session = new Session().turns(300);
    const checkpoint = session.newestCheckpoint();
    session.run({ type: 'RewindTranscript', turns: 1, now: now() });
    const event = session.rollBack(checkpoint, session.replayedAt(checkpoint.revision));
    expect(event.data.restored.transcript).toMatchObject({ kept: 598, liveCount: 600 });
    expect(event.data.restored.transcript.following).toHaveLength(2);
  });

  it('stops at the first message a rewrite after the checkpoint deleted, however early, in that slot only', () => {
    const session = new Session().turns(3);
    session.run({ type: 'CreateSlot', name: 'side', now: now() });
    session.run({ type: 'SwitchSlot', name: 'side', now: now() });
    session.turns(2);
    session.run({ type: 'CreateCheckpoint', label: 'before summary', now: now() });
    const checkpoint = session.newestCheckpoint();
    const atCheckpoint = session.state;
    // The rewrite soft-deletes the side slot's messages (indexes 6-9) and appends the summary; main's 0-5 are untouched.
    session.run({ type: 'RewriteTranscript', messages: [{ role: 'system', content: 'summary' }], now: now() });
    session.turns(1);
    const event = session.rollBack(checkpoint, atCheckpoint);
    expect(event.data.restored.transcript.kept).toBe(6);
    expect(contents(event.data.restored.transcript.following)).toEqual([
      [6, 'user', false],
      [7, 'assistant', false],
      [8, 'user', false],
      [9, 'assistant', false],
    ]);
    expect(event.data.restored).toMatchObject({ currentSlot: 'side', slots: [{ name: 'main' }, { name: 'side' }], lastSummaryTurn: null });
  });

  it('keeps messages soft-deleted before the checkpoint as they are, and counts only the live ones', () => {
    const session = new Session().turns(4);
    session.run({ type: 'RewindTranscript', turns: 1, now: now() });
    session.turns(1);
    const checkpoint = session.newestCheckpoint();
    const atCheckpoint = session.state;
    session.turns(2);
    const event = session.rollBack(checkpoint, atCheckpoint);
    // 4 turns, the fourth rewound (2 messages deleted), then a turn again: 10 messages, 8 live, nothing after them to restore.
    expect(event.data.restored.transcript).toEqual({ kept: 10, following: [], liveCount: 8 });
  });

  it('stops where a turn recorded after an earlier rollback reused the same message indexes', () => {
    const session = new Session().turns(3);
    const newest = session.newestCheckpoint();
    const atNewest = session.state;
    const first = session.state.checkpoints[0]![0]!;
    session.rollBack(first, session.replayedAt(first.revision));
    // Index 2 and 3 again, with other words: equal numbers, different messages.
    session.run({ type: 'RecordTurn', messages: exchange('something else'), usage, status: 'completed', autoCheckpoint: true, now: now() });
    expect(contents(toArray(session.state.transcript))).toEqual(contents(toArray(atNewest.transcript)).slice(0, 4));
    const event = session.rollBack(newest, atNewest);
    expect(event.data.restored.transcript.kept).toBe(2);
    expect(event.data.restored.transcript.following.map((message) => message.content)).toEqual([
      [{ type: 'text', text: 'turn 2' }],
      're: turn 2',
      [{ type: 'text', text: 'turn 3' }],
      're: turn 3',
    ]);
  });

  it('rolls forward by keeping the whole shorter transcript and carrying the rest', () => {
    const session = new Session().turns(3);
    const newest = session.newestCheckpoint();
    const atNewest = session.state;
    const first = session.state.checkpoints[0]![0]!;
    const back = session.rollBack(first, session.replayedAt(first.revision));
    expect(back.data.restored.transcript).toEqual({ kept: 2, following: [], liveCount: 2 });
    const forward = session.rollBack(newest, atNewest);
    expect(forward.data.restored.transcript.kept).toBe(2);
    expect(forward.data.restored.transcript.following).toHaveLength(4);
    expect(forward.data.restored.transcript.liveCount).toBe(6);
  });

  it('restores memory, counters and slots whole', () => {
    const session = new Session().turns(1);
    session.run({ type: 'SetMemoryEntry', name: 'topic', value: 'cats', metadata: {}, now: now() });
    session.run({ type: 'CreateCheckpoint', label: null, now: now() });
    const checkpoint = session.newestCheckpoint();
    const atCheckpoint = session.state;
    session.run({ type: 'SetMemoryEntry', name: 'topic', value: 'dogs', metadata: {}, now: now() });
    session.run({ type: 'CreateSlot', name: 'side', now: now() });
    session.turns(2);
    const event = session.rollBack(checkpoint, atCheckpoint);
    expect(event.data.restored).toMatchObject({
      memory: [{ name: 'topic', value: 'cats' }],
      slots: [{ name: 'main' }],
      turnCount: 1,
      counters: { inputTokens: 10 },
    });
  });

  it('replays a log written with v1 RolledBack events (the whole timeline) to the same state as the v2 log', () => {
    const session = new Session().turns(300);
    const newest = session.newestCheckpoint();
    const atNewest = session.state;
    session.run({ type: 'RewindTranscript', turns: 3, now: now() });
    session.rollBack(newest, atNewest);
    const first = session.state.checkpoints[0]![0]!;
    session.rollBack(first, session.replayedAt(first.revision));
    session.turns(1);
    // The same history as the old service wrote it: each RolledBack with its checkpoint's whole timeline, no version.
    const v1Log = session.history.map((event) => {
      if (event.type !== 'RolledBack')
        return { type: event.type, data: event.data, metadata: { schemaVersion: eventSchemaHistory.currentVersion(event.type) } };
      const restored = timelineOf(session.replayedAt(event.data.targetRevision));
      return { type: event.type, data: { ...event.data, restored }, metadata: {} };
    });
    const replayed = v1Log.reduce((state, event, revision) => {
      const upcast = upcastEvent({
        id: `e${revision}`,
        streamName: 'session-s1',
        revision,
        position: revision + 1,
        createdAt: new Date(0),
        ...(canonicalJson(event) as { type: string; data: JsonObject; metadata: EventMetadata }),
      });
      return evolveSession(state, canonicalJson({ type: upcast.type, data: upcast.data }) as SessionStreamEvent);
    }, initialSessionState());
    expect(JSON.stringify(replayed)).toBe(JSON.stringify(session.state));
    // Back at the first checkpoint (2 messages), then one turn.
    expect(toArray(replayed.transcript)).toHaveLength(4);
    expect(
      v1Log.filter((event) => event.type === 'RolledBack').map((event) => (event.data as { restored: { transcript: unknown[] } }).restored.transcript.length),
    ).toEqual([600, 2]);
  });
});

describe('shared leading items of two chunked lists', () => {
  it('skips chunks both lists hold without comparing their items', () => {
    const session = new Session().turns(600);
    const atCheckpoint = session.state;
    session.run({ type: 'RewindTranscript', turns: 1, now: now() });
    let compared = 0;
    const kept = sharedLeadingCount(session.state.transcript, atCheckpoint.transcript, () => {
      compared += 1;
      return false;
    });
    // 1,200 messages in chunks of 256: the first four chunks are shared, the last (176 messages) was copied by the rewind.
    expect(kept).toBe(1198);
    expect(compared).toBe(1);
  });

  it('answers the change of a state with itself as keeping everything', () => {
    const session = new Session().turns(5);
    expect(restoredTimelineOf(session.state, session.state).transcript).toEqual({ kept: 10, following: [], liveCount: 10 });
  });
});
