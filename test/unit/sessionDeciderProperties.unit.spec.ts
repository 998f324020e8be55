// Properties of the session decider over seeded random command sequences: replay agrees with live folding.
import { describe, expect, it } from 'vitest';
import type { MessageInput, MessageRole, SessionStreamEvent as SessionTranscriptEvent, TurnStatus } from '../../src/events/session/sessionEvents.js';
import { decideSession, evolveSession, initialSessionState, type SessionCommand, type SessionState } from '../../src/modules/sessions/domain/sessionDecider.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { toArray } from '../../src/modules/sessions/domain/chunkedList.js';
import { deepFreeze, type Random, randomFrom } from '../support/propertyTesting.js';

const SEQUENCES = 300;
const MAX_COMMANDS = 40;

const roles: readonly MessageRole[] = ['system', 'user', 'assistant', 'tool'];
const statuses: readonly TurnStatus[] = ['completed', 'completed', 'failed', 'interrupted'];

function randomMessages(random: Random, min: number, max: number): MessageInput[] {
  return Array.from({ length: random.int(min, max) }, (_, offset) => {
    // Most turns open with a user message, so rewinds usually find one.
    const role = offset === 0 && random.next() < 0.8 ? 'user' : random.pick(roles);
    const content =
      random.next() < 0.2
        ? [
            { type: 'text', text: `part ${offset}` },
            { type: 'text', text: 'more' },
          ]
        : `message ${offset}`;
    return { role, content };
  });
}

function randomCommand(random: Random, now: string): SessionCommand {
  const roll = random.next();
  if (roll < 0.6) {
    return {
      type: 'RecordTurn',
      messages: randomMessages(random, 0, 4),
      status: random.pick(statuses),
      usage: {
        inputTokens: random.int(0, 5000),
        outputTokens: random.int(0, 2000),
        cacheReadTokens: random.int(0, 3000),
        cacheWriteTokens: random.int(0, 1000),
        lastPromptTokens: random.next() < 0.3 ? null : random.int(0, 200_000),
        costUsd: random.int(0, 100_000) / 1e7,
      },
      now,
    };
  }
  if (roll < 0.85) return { type: 'RewindTranscript', turns: random.int(-1, 4), now };
  return { type: 'RewriteTranscript', messages: randomMessages(random, 0, 3), now };
}

const source = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '12345' });
const fold = (state: SessionState, events: SessionTranscriptEvent[]) => events.reduce(evolveSession, state);
const live = (state: SessionState) => toArray(state.transcript).filter((message) => !message.deleted);

interface Step {
  command: SessionCommand;
  events: SessionTranscriptEvent[];
  before: SessionState;
  after: SessionState;
  /** Every event so far, from SessionCreated on. */
  history: SessionTranscriptEvent[];
}

/** Runs one random sequence, deciding each command on the state folded so far. */
function* randomRun(seed: number): Generator<Step> {
  const random = randomFrom(seed);
  const start = Date.parse('2026-06-16T09:00:00.000Z');
  const created: SessionTranscriptEvent = {
    type: 'SessionCreated',
    data: { sessionId: `s${seed}`, sessionKey: 'agent:main:telegram:dm:12345', origin: source, reason: 'new', at: new Date(start).toISOString() },
  };
  const history: SessionTranscriptEvent[] = [created];
  let state = deepFreeze(fold(initialSessionState(), history));
  const length = random.int(1, MAX_COMMANDS);
  for (let step = 1; step <= length; step += 1) {
    const command = randomCommand(random, new Date(start + step * 1000).toISOString());
    const events = deepFreeze(decideSession(command, state));
    history.push(...events);
    const after = deepFreeze(fold(state, events));
    yield { command, events, before: state, after, history: [...history] };
    state = after;
  }
}

const seeds = Array.from({ length: SEQUENCES }, (_, i) => i + 1);

describe('session decider properties (seeded random RecordTurn / RewindTranscript / RewriteTranscript sequences)', () => {
  it('folding the decided events from scratch equals folding them incrementally', () => {
    for (const seed of seeds) {
      for (const { after, history } of randomRun(seed)) {
        expect(fold(initialSessionState(), history), `seed ${seed} after ${history.length} events`).toEqual(after);
      }
    }
  });

  it("live messages' indexes are strictly increasing", () => {
    for (const seed of seeds) {
      for (const { after, history } of randomRun(seed)) {
        const indexes = live(after).map((message) => message.index);
        const increasing = indexes.every((index, i) => i === 0 || index > indexes[i - 1]!);
        expect(increasing, `seed ${seed} after ${history.length} events: ${indexes.join(',')}`).toBe(true);
      }
    }
  });

  it('a rewind soft-deletes exactly rewoundCount live messages and a rewrite replaces exactly replacedCount', () => {
    for (const seed of seeds) {
      for (const { events, before, after, history } of randomRun(seed)) {
        for (const event of events) {
          const where = `seed ${seed} after ${history.length} events`;
          if (event.type === 'TranscriptRewound') {
            expect(live(before).length - live(after).length, where).toBe(event.data.rewoundCount);
          }
          if (event.type === 'TranscriptRewritten') {
            expect(live(before).length, where).toBe(event.data.replacedCount);
            expect(
              live(after).map((message) => message.index),
              where,
            ).toEqual(event.data.messages.map((message) => message.index));
          }
        }
      }
    }
  });
});
