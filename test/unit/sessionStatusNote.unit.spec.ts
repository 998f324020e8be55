// Status notes: a system line in the transcript that is not a turn (the runtime drift note).
import { describe, expect, it } from 'vitest';
import type { SessionTranscriptEvent } from '../../src/events/session/sessionEvents.js';
import { toArray } from '../../src/modules/sessions/domain/chunkedList.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { decideSession, evolveSession, initialSessionState } from '../../src/modules/sessions/domain/sessionDecider.js';
import { specification } from '../support/deciderSpecification.js';

const session = specification({ initialState: initialSessionState, evolve: evolveSession, decide: decideSession });
const at = '2026-06-16T09:00:00.000Z';
const origin = parseSessionSource({ platform: 'telegram', chatType: 'dm', chatId: '1' });
const created: SessionTranscriptEvent = {
  type: 'SessionCreated',
  data: { sessionId: 's1', sessionKey: 'agent:main:telegram:dm:1', origin, reason: 'new', at },
};
const note = { type: 'NoteStatus' as const, text: 'provider changed from codex to claude', reason: 'runtime_drift', now: at };

describe('status notes', () => {
  it('append one system message with the next index, without counting a turn', () => {
    session
      .given([created])
      .when(note)
      .thenState((state) => {
        const messages = toArray(state.transcript);
        expect(messages).toHaveLength(1);
        expect(messages[0]).toMatchObject({ role: 'system', content: note.text, index: 0, metadata: { status: 'runtime_drift' }, deleted: false });
        expect(state.turnCount).toBe(0);
        expect(state.nextMessageIndex).toBe(1);
      });
  });

  it('are not written to a session that has ended', () => {
    session
      .given([created, { type: 'SessionEnded', data: { reason: 'reset', at } }])
      .when(note)
      .then([]);
  });
});
