// Hermes data as ledger events, before anything is written: turns, session attribution, keys, the plan's streams.
import { describe, expect, it } from 'vitest';
import { hermesKeysOfSessions, ledgerKeyFor } from '../../src/modules/hermesImport/hermesSessionKeys.js';
import type { HermesMessageRow, HermesSessionRow } from '../../src/modules/hermesImport/hermesStateDb.js';
import { hermesTurns } from '../../src/modules/hermesImport/hermesTurns.js';
import { importEventId, importedJobId } from '../../src/modules/hermesImport/importEventId.js';
import { parseHermesSessionsJson } from '../../src/modules/hermesImport/hermesSessionsJson.js';
import { planHermesImport } from '../../src/modules/hermesImport/planHermesImport.js';

let nextId = 1;
const message = (role: string, content: string | null, timestamp: number, extra: Partial<HermesMessageRow> = {}): HermesMessageRow => ({
  id: nextId++,
  sessionId: 's',
  role,
  content,
  toolCallId: null,
  toolCalls: null,
  toolName: null,
  timestamp,
  tokenCount: null,
  finishReason: null,
  active: true,
  ...extra,
});
const session = (id: string, extra: Partial<HermesSessionRow> = {}): HermesSessionRow => ({
  id,
  source: 'telegram',
  userId: null,
  sessionKey: null,
  chatId: null,
  chatType: null,
  threadId: null,
  displayName: null,
  originJson: null,
  model: null,
  parentSessionId: null,
  startedAt: 1_772_000_000,
  endedAt: null,
  endReason: null,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  estimatedCostUsd: 0,
  title: null,
  ...extra,
});

describe('Hermes transcripts as turns', () => {
  it('starts a turn at each user message; a leading system prompt joins the first', () => {
    const { turns } = hermesTurns([
      message('system', 'be nice', 1),
      message('user', 'a', 2),
      message('assistant', 'b', 3),
      message('user', 'c', 4),
      message('tool', 't', 5),
      message('assistant', 'd', 6),
    ]);
    expect(turns.map((turn) => turn.messages.map((m) => m.content))).toEqual([
      ['be nice', 'a', 'b'],
      ['c', 't', 'd'],
    ]);
    expect(turns[1]!.at).toBe(new Date(6_000).toISOString());
  });

  it('keeps tool calls, ids and names; counts what it leaves out', () => {
    const converted = hermesTurns([
      message('user', 'q', 1),
      message('assistant', null, 2, { toolCalls: '[{"id":"c1"}]', finishReason: 'tool_calls' }),
      message('tool', 'r', 3, { toolCallId: 'c1', toolName: 'search', tokenCount: 4 }),
      message('assistant', 'x', 4, { toolCalls: 'not json' }),
      message('user', 'undone', 5, { active: false }),
      message('session_meta', '{}', 6),
    ]);
    expect(converted.turns[0]!.messages).toMatchObject([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'c1' }], metadata: { finishReason: 'tool_calls' } },
      { role: 'tool', toolCallId: 'c1', name: 'search', metadata: { tokenCount: 4, at: '1970-01-01T00:00:03.000Z' } },
      { role: 'assistant', metadata: { toolCallsText: 'not json' } },
    ]);
    expect([converted.inactive, converted.unknownRoles]).toEqual([1, { session_meta: 1 }]);
  });
});

describe('which conversation a Hermes session belongs to', () => {
  it('follows reset and compression chains both ways, not a subagent branch', () => {
    const rows = [
      session('a', { endReason: 'session_reset' }),
      session('b', { parentSessionId: 'a', endReason: 'compression' }),
      session('c', { parentSessionId: 'b' }),
      session('sub', { parentSessionId: 'c' }),
      session('lone', { sessionKey: 'agent:main:cli:dm:me' }),
    ];
    const keys = hermesKeysOfSessions(rows, parseHermesSessionsJson({ 'agent:main:telegram:dm:1': { session_id: 'c' } }));
    expect(Object.fromEntries(keys)).toEqual({
      a: 'agent:main:telegram:dm:1',
      b: 'agent:main:telegram:dm:1',
      c: 'agent:main:telegram:dm:1',
      lone: 'agent:main:cli:dm:me',
    });
  });

  it("keys a conversation the ledger's way when its real origin says so", () => {
    const origin = { platform: 'slack', chatType: 'dm' as const, chatId: 'D:1', isBot: false, roleAuthorized: false };
    // Hermes keeps ':' inside ids, and so does the ledger by default: the same key. SESSION_KEY_ESCAPE_IDS rekeys it.
    expect(ledgerKeyFor('agent:main:slack:dm:D:1', origin, true, {})).toBe('agent:main:slack:dm:D:1');
    expect(ledgerKeyFor('agent:main:slack:dm:D:1', origin, true, { escapeIds: true })).toBe('agent:main:slack:dm:D%3A1');
    expect(ledgerKeyFor('agent:main:slack:dm:D:1', origin, true, { groupSessionsPerUser: false, agent: 'ops' })).toBe('agent:ops:slack:dm:D:1');
    expect(ledgerKeyFor('agent:main:slack:dm:D:1', origin, false, {})).toBe('agent:main:slack:dm:D:1');
    expect(ledgerKeyFor('agent:main:x:dm', { platform: 'x', chatType: 'dm', isBot: false, roleAuthorized: false }, true, {})).toBe('agent:main:x:dm');
  });
});

describe('the import plan', () => {
  const hermes = {
    home: '/h',
    files: { sessionsJson: '/h/sessions.json', stateDb: '/h/state.db', stateDbWal: null, jobsJson: null, jsonlTranscripts: [] },
    leftOut: [],
    entries: parseHermesSessionsJson({
      'agent:main:telegram:dm:1': {
        session_id: 'new',
        updated_at: '2026-03-01T10:00:00',
        origin: { platform: 'telegram', chat_type: 'dm', chat_id: 1 },
        suspended: true,
      },
    }),
    stateDb: {
      sessions: [
        session('old', { endReason: 'session_reset', startedAt: 1_772_000_000 }),
        session('new', { parentSessionId: 'old', startedAt: 1_772_100_000, inputTokens: 7 }),
      ],
      messages: new Map([
        ['old', [message('user', 'hi', 1_772_000_001), message('assistant', 'yo', 1_772_000_002)]],
        ['new', [message('user', 'again', 1_772_100_001)]],
      ]),
    },
    jobs: [],
  };

  it("writes what the deciders decide: sessions first, the conversation's resets, the entry as Hermes wrote it last", () => {
    const plan = planHermesImport(hermes, { keyOptions: {}, autoCheckpoint: true, gatewayId: 'g' });
    expect(plan.streams.map((stream) => [stream.streamName, stream.events.map((event) => event.type)])).toEqual([
      ['session-old', ['SessionCreated', 'TurnRecorded', 'SessionEnded']],
      ['session-new', ['SessionCreated', 'TurnRecorded']],
      ['conversation-agent:main:telegram:dm:1', ['ConversationOpened', 'SessionBound', 'SessionBound', 'RoutingEntryImported']],
    ]);
    const [, bound] = plan.streams[2]!.events.filter((event) => event.type === 'SessionBound');
    expect(bound!.data).toMatchObject({ sessionId: 'new', reason: 'reset', previousSessionId: 'old', previousHadActivity: true });
    expect(plan.streams[1]!.events[1]!.data).toMatchObject({ usage: { inputTokens: 7 }, checkpointId: 'cp-1' });
    expect(plan.streams[2]!.events[3]!.data).toMatchObject({ suspended: true, updatedAt: '2026-03-01T10:00:00.000Z', carried: null });
    expect(plan.totals).toEqual({ sessions: 2, turns: 2, messages: 3 });
  });

  it('scopes the streams to a tenant when asked', () => {
    const plan = planHermesImport(hermes, { keyOptions: {}, autoCheckpoint: false, gatewayId: 'g', tenant: 'acme' });
    expect(plan.streams.map((stream) => stream.streamName)).toEqual(['acme~session-old', 'acme~session-new', 'acme~conversation-agent:main:telegram:dm:1']);
  });

  it('names events and id-less jobs the same way on every run', () => {
    expect(importEventId('session-old', 0)).toBe(importEventId('session-old', 0));
    expect(importEventId('session-old', 0)).not.toBe(importEventId('session-old', 1));
    expect(importEventId('session-old', 0)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(importedJobId({ schedule: 'every 2h', prompt: 'x' })).toBe(importedJobId({ prompt: 'x', schedule: 'every 2h' }));
  });
});
