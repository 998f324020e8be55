// Properties of rollback over seeded random sequences of turns, checkpoints, memory, slots, rewinds and rollbacks.
import { describe, expect, it } from 'vitest';
import type { SessionStreamEvent } from '../../src/events/session/sessionEvents.js';
import { canonicalJson } from '../../src/events/streamStateStore.js';
import { decideSession, evolveSession, initialSessionState, type SessionCommand, type SessionState } from '../../src/modules/sessions/domain/sessionDecider.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { toArray } from '../../src/modules/sessions/domain/chunkedList.js';
import { deepFreeze, type Random, randomFrom } from '../support/propertyTesting.js';
import { listCheckpoints, timelineOf } from '../../src/modules/sessions/domain/sessionState.js';

const SEQUENCES = 200;
const MAX_COMMANDS = 60;

/** Folds as StreamStateStore does: every event read through canonicalJson, as if it came back from the store. */
const fold = (state: SessionState, events: readonly SessionStreamEvent[]) =>
  events.reduce((folded, event) => evolveSession(folded, canonicalJson(event)), state);
const bytes = (value: unknown) => JSON.stringify(value);
const source = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '12345' });

/** A command the running session could be sent; a rollback's state is a replay of the history up to its checkpoint. */
function randomCommand(random: Random, state: SessionState, history: readonly SessionStreamEvent[], now: string): SessionCommand {
  const roll = random.next();
  if (roll < 0.3) {
    return {
      type: 'RecordTurn',
      messages: Array.from({ length: random.int(0, 3) }, (_, offset) => ({
        role: offset === 0 ? ('user' as const) : ('assistant' as const),
        content:
          random.next() < 0.3
            ? [
                { type: 'text', text: `t${offset}` },
                { text: 'x', type: 'text' },
              ]
            : `m${offset}`,
        ...(random.next() < 0.2 ? { metadata: { z: 1, a: { y: 2, b: 3 } } } : {}),
      })),
      usage: {
        inputTokens: random.int(0, 500),
        outputTokens: random.int(0, 500),
        cacheReadTokens: 0,
        cacheWriteTokens: random.int(0, 9),
        lastPromptTokens: random.next() < 0.5 ? null : random.int(0, 9_000),
        costUsd: random.int(0, 10_000) / 1e7,
      },
      status: random.pick(['completed', 'completed', 'failed'] as const),
      autoCheckpoint: random.next() < 0.8,
      now,
    };
  }
  if (roll < 0.4) return { type: 'CreateCheckpoint', label: random.next() < 0.5 ? null : `label ${random.int(0, 9)}`, now };
  if (roll < 0.55 && state.checkpoints.length > 0 && !state.turnInFlight) {
    const target = random.pick(toArray(state.checkpoints));
    // Folded afresh: nothing shared with the current state, so the kept prefix is found by comparing messages.
    const restored = fold(initialSessionState(), history.slice(0, target.revision + 1));
    return { type: 'RollBack', checkpointId: target.checkpointId, restored, now };
  }
  if (roll < 0.65)
    return {
      type: 'SetMemoryEntry',
      name: random.pick(['a', 'b', 'c']),
      value: random.next() < 0.5 ? random.int(0, 9) : { k: random.int(0, 9), j: [1, 'x'] },
      metadata: { by: 'test' },
      now,
    };
  if (roll < 0.7 && state.memory.length > 0) return { type: 'RemoveMemoryEntry', name: random.pick(state.memory).name, now };
  if (roll < 0.75) {
    const name = random.pick(['main', 'tools', 'scratch']);
    return state.slots.some((slot) => slot.name === name) ? { type: 'SwitchSlot', name, now } : { type: 'CreateSlot', name, now };
  }
  if (roll < 0.82) return { type: 'RewindTranscript', turns: random.int(1, 3), now };
  if (roll < 0.87) return { type: 'RewriteTranscript', messages: [{ role: 'system', content: 'summary' }], now };
  if (roll < 0.95 && !state.turnInFlight) return { type: 'StartTurn', now };
  return { type: 'CreateCheckpoint', label: null, now };
}

interface Step {
  events: SessionStreamEvent[];
  after: SessionState;
  history: SessionStreamEvent[];
}

function* randomRun(seed: number): Generator<Step> {
  const random = randomFrom(seed);
  const start = Date.parse('2026-06-16T09:00:00.000Z');
  const history: SessionStreamEvent[] = [
    {
      type: 'SessionCreated',
      data: { sessionId: `s${seed}`, sessionKey: 'agent:main:telegram:dm:12345', origin: source, reason: 'new', at: new Date(start).toISOString() },
    },
  ];
  let state = deepFreeze(fold(initialSessionState(), history));
  const length = random.int(5, MAX_COMMANDS);
  for (let step = 1; step <= length; step += 1) {
    const command = randomCommand(random, state, history, new Date(start + step * 1000).toISOString());
    const events = deepFreeze(decideSession(command, state));
    history.push(...events);
    const after = deepFreeze(fold(state, events));
    yield { events, after, history: [...history] };
    state = after;
  }
}

const seeds = Array.from({ length: SEQUENCES }, (_, i) => i + 1);

describe('rollback properties (seeded random turns, checkpoints, memory, slots, rewinds, rollbacks)', () => {
  it('after a rollback the state serialises exactly like a fresh fold of the events up to the checkpoint', () => {
    let rollbacks = 0;
    let forward = 0;
    for (const seed of seeds) {
      let rolledBackTo = -1;
      for (const { events, after, history } of randomRun(seed)) {
        for (const event of events) {
          if (event.type !== 'RolledBack') continue;
          rollbacks += 1;
          if (event.data.targetRevision > rolledBackTo && rolledBackTo >= 0) forward += 1;
          rolledBackTo = event.data.targetRevision;
          const replayed = fold(initialSessionState(), history.slice(0, event.data.targetRevision + 1));
          expect(bytes(timelineOf(after)), `seed ${seed} rollback to revision ${event.data.targetRevision}`).toBe(bytes(timelineOf(replayed)));
        }
      }
    }
    // The sequences do exercise what they claim to: many rollbacks, some of them forward past an earlier target.
    expect(rollbacks).toBeGreaterThan(300);
    expect(forward).toBeGreaterThan(50);
  });

  it('folding the whole history from scratch equals folding it step by step, byte for byte', () => {
    for (const seed of seeds) {
      for (const { after, history } of randomRun(seed)) {
        expect(bytes(fold(initialSessionState(), history)), `seed ${seed} after ${history.length} events`).toBe(bytes(after));
      }
    }
  });

  it('the current timeline is the chain from the head checkpoint, and the head is always on it', () => {
    for (const seed of seeds) {
      for (const { after, history } of randomRun(seed)) {
        const listed = listCheckpoints(after);
        const onTimeline = listed.filter((checkpoint) => checkpoint.onCurrentTimeline).map((checkpoint) => checkpoint.checkpointId);
        expect(onTimeline[0] ?? null, `seed ${seed} after ${history.length} events`).toBe(after.headCheckpointId);
        // Every checkpoint on the timeline is an ancestor of the current state: its turn index never exceeds the current one.
        for (const checkpoint of listed.filter((candidate) => candidate.onCurrentTimeline)) expect(checkpoint.turnIndex).toBeLessThanOrEqual(after.turnCount);
      }
    }
  });
});
