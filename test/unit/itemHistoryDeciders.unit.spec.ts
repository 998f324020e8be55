// Sessions by external id and item histories as specifications: create once, append with derived ids, pop, clear, and the fold's count.
import { describe, expect, it } from 'vitest';
import type { SessionStreamEvent } from '../../src/events/session/sessionEvents.js';
import { agentSessionId, agentSessionKey, agentSessionOfKey } from '../../src/modules/agentSessions/domain/agentSessionId.js';
import { type AppendItems, decideAppendItems } from '../../src/modules/agentSessions/domain/decideAppendItems.js';
import { type ClearItems, decideClearItems } from '../../src/modules/agentSessions/domain/decideClearItems.js';
import { type CreateAgentSession, decideCreateAgentSession } from '../../src/modules/agentSessions/domain/decideCreateAgentSession.js';
import { decidePopItem, type PopItem } from '../../src/modules/agentSessions/domain/decidePopItem.js';
import { itemEventId } from '../../src/modules/agentSessions/items/itemEventId.js';
import { sessionDecider } from '../../src/modules/sessions/domain/sessionDecider.js';
import { specification } from '../support/deciderSpecification.js';

const at = (seconds: number) => new Date(Date.parse('2026-12-01T09:00:00.000Z') + seconds * 1000).toISOString();
const STREAM = 'session-ag_1';
const sessionId = agentSessionId('support', 'conv-1', 0);

const create = specification({ ...sessionDecider, decide: (command: CreateAgentSession, state) => decideCreateAgentSession(command, state) });
const append = specification({ ...sessionDecider, decide: (command: AppendItems, state) => decideAppendItems(command, state) });
const pop = specification({ ...sessionDecider, decide: (command: PopItem, state) => decidePopItem(command, state) });
const clear = specification({ ...sessionDecider, decide: (command: ClearItems, state) => decideClearItems(command, state) });

const createCommand: CreateAgentSession = {
  type: 'CreateAgentSession',
  sessionId,
  namespace: 'support',
  externalId: 'conv-1',
  agentName: 'helper',
  metadata: { team: 'a' },
  now: at(0),
};
const created: SessionStreamEvent = decideCreateAgentSession(createCommand, sessionDecider.initialState())[0]!;
const appended = (position: number, itemId: string, seconds = position + 1): SessionStreamEvent => ({
  type: 'ItemAppended',
  data: { itemId, position, occurrence: 0, item: { text: itemId }, at: at(seconds) },
});
const destroyed: SessionStreamEvent = { type: 'SessionDestroyed', data: { reason: 'destroyed', at: at(50) } };

describe('sessions by external id', () => {
  it('derive one session id per namespace, external id and incarnation', () => {
    expect(sessionId).toMatch(/^ag_[0-9a-f]{32}$/);
    expect(agentSessionId('support', 'conv-1', 0)).toBe(sessionId);
    expect(
      new Set([sessionId, agentSessionId('support', 'conv-1', 1), agentSessionId('other', 'conv-1', 0), agentSessionId('support', 'conv-2', 0)]).size,
    ).toBe(4);
    // The separator cannot be forged by the parts: "a" + "b:c" is not "a:b" + "c".
    expect(agentSessionId('a', 'b\u0000c', 0)).not.toBe(agentSessionId('a\u0000b', 'c', 0));
  });

  it('name the key an erasure finds, and read it back', () => {
    expect(agentSessionKey('support', 'a:b/c')).toBe('agent-session:support:a:b/c');
    expect(agentSessionOfKey('agent-session:support:a:b/c')).toEqual({ namespace: 'support', externalId: 'a:b/c' });
    expect(agentSessionOfKey('agent:main:telegram:dm:1')).toBeNull();
  });

  it('create a session with its namespace, external id, agent name and metadata', () => {
    create
      .given()
      .when(createCommand)
      .then([
        {
          type: 'SessionCreated',
          data: {
            sessionId,
            sessionKey: 'agent-session:support:conv-1',
            origin: { platform: 'agent', chatType: 'dm', chatId: 'conv-1', isBot: false, roleAuthorized: false },
            reason: 'agent',
            at: at(0),
            agentName: 'helper',
            metadata: { team: 'a' },
            depth: 0,
            namespace: 'support',
            externalId: 'conv-1',
          },
        },
      ]);
  });

  it('create nothing on a stream that has its session already, whoever created it', () => {
    create.given([created]).when(createCommand).then([]);
    create.given([created, destroyed]).when(createCommand).then([]);
  });
});

describe('item histories', () => {
  it('number appended items after the last and derive each event id from the stream, the item id and its occurrence', () => {
    append
      .given([created, appended(0, 'a')])
      .when({
        type: 'AppendItems',
        streamName: STREAM,
        items: [
          { itemId: 'b', item: { n: 1 }, occurrence: 0 },
          { itemId: 'a', item: { n: 2 }, occurrence: 1 },
        ],
        now: at(9),
      })
      .then([
        { id: itemEventId(STREAM, 'b', 0), type: 'ItemAppended', data: { itemId: 'b', position: 1, occurrence: 0, item: { n: 1 }, at: at(9) } },
        { id: itemEventId(STREAM, 'a', 1), type: 'ItemAppended', data: { itemId: 'a', position: 2, occurrence: 1, item: { n: 2 }, at: at(9) } },
      ] as never);
    expect(itemEventId(STREAM, 'a', 0)).not.toBe(itemEventId(STREAM, 'a', 1));
    expect(itemEventId(STREAM, 'a', 0)).not.toBe(itemEventId('session-ag_2', 'a', 0));
    expect(itemEventId(STREAM, 'a', 0)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('refuse items on a session that does not exist or was destroyed', () => {
    const command: AppendItems = { type: 'AppendItems', streamName: STREAM, items: [{ itemId: 'a', item: {}, occurrence: 0 }], now: at(9) };
    append.given().when(command).thenThrows({ code: 'SESSION_NOT_FOUND' });
    append.given([created, destroyed]).when(command).thenThrows({ code: 'SESSION_DESTROYED' });
  });

  it('pop the last item, naming the event that appended it; nothing on an empty history', () => {
    const last = { id: 'b', index: 1, item: { text: 'b' }, at: at(2), sessionId, revision: 2 };
    pop
      .given([created, appended(0, 'a'), appended(1, 'b')])
      .when({ type: 'PopItem', last, now: at(9) })
      .then([{ type: 'ItemPopped', data: { itemId: 'b', position: 1, revision: 2, at: at(9) } }]);
    pop
      .given([created])
      .when({ type: 'PopItem', last: null, now: at(9) })
      .then([]);
    // A fork's inherited item lives in its parent's stream: the pop names that session.
    pop
      .given([created, appended(0, 'a')])
      .when({ type: 'PopItem', last: { ...last, index: 0, sessionId: 'parent' }, now: at(9) })
      .then([{ type: 'ItemPopped', data: { itemId: 'b', position: 0, revision: 2, sessionId: 'parent', at: at(9) } }]);
  });

  it('clear a history that holds items; nothing on an empty one', () => {
    clear
      .given([created, appended(0, 'a'), appended(1, 'b')])
      .when({ type: 'ClearItems', now: at(9) })
      .then([{ type: 'ItemsCleared', data: { clearedCount: 2, at: at(9) } }]);
    clear
      .given([created])
      .when({ type: 'ClearItems', now: at(9) })
      .then([]);
  });

  it('fold only the count and where the history last shrank, never the items', () => {
    append
      .given([
        created,
        appended(0, 'a'),
        appended(1, 'b'),
        { type: 'ItemPopped', data: { itemId: 'b', position: 1, revision: 2, at: at(5) } },
        appended(1, 'c'),
      ])
      .when({ type: 'AppendItems', streamName: STREAM, items: [], now: at(9) })
      .thenState((state) => {
        expect(state).toMatchObject({ itemCount: 2, itemsShrunkAt: 3, revision: 4, updatedAt: at(2) });
        expect(JSON.stringify(state)).not.toContain('"text"');
      });
    clear
      .given([created, appended(0, 'a'), { type: 'ItemsCleared', data: { clearedCount: 1, at: at(7) } }])
      .when({ type: 'ClearItems', now: at(9) })
      .thenState({ itemCount: 0, itemsShrunkAt: 2, updatedAt: at(7) });
  });
});
