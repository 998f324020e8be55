// Properties of the key → stream name mapping (SESSION_KEY_ESCAPE_IDS): ids with ':', '/', '%' and any unicode can neither collide nor escape their stream.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conversationStreamName } from '../../src/events/conversation/conversationEvents.js';
import { streamScope } from '../../src/events/streamScope.js';
import { sessionKeyFor } from '../../src/modules/sessions/domain/sessionKey.js';
import { parseSessionSource } from '../../src/modules/sessions/domain/sessionSourceSchema.js';
import { isTenantName } from '../../src/config/apiTokens.js';

const RUNS = Number(process.env.KEY_PROPERTY_RUNS ?? 2_000);

/**
 * Ids full of the key's own separator, the escape character, URL path syntax and arbitrary code points, but for the
 * control characters a source refuses (U+0000-U+001F, U+007F).
 */
const id = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom(':', '/', '%', '3', 'A', 'a', '.', '~', '\\', ' ') }),
  fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }).filter((value) => !/[\u0000-\u001f\u007f]/.test(value)),
  fc.constantFrom(':', '::', '/', '../..', '%3A', '%253A', 'a:b', 'a%3Ab', '~', 'x~y'),
);

// Every segment present, so the key's shape is fixed and the only way to collide would be through the ids.
const groupSource = fc.record({
  platform: fc.constantFrom('telegram', 'discord', 'slack', 'matrix'),
  chatType: fc.constantFrom('group', 'channel'),
  chatId: id,
  threadId: id,
  userId: id,
});

/** Splits a key on its separator and undoes the part escaping. */
function partsOf(key: string): string[] {
  return key.split(':').map((part) => part.replaceAll('%3A', ':').replaceAll('%25', '%'));
}

// With SESSION_KEY_ESCAPE_IDS: Hermes' raw keys (the default) share keys across such ids by design.
const keyOf = (input: object) => sessionKeyFor(parseSessionSource(input), { groupSessionsPerUser: true, threadSessionsPerUser: true, escapeIds: true });

describe('session keys and their streams', () => {
  it('decode back into exactly the ids they were built from, so two different sources never share a key', () => {
    fc.assert(
      fc.property(groupSource, (source) => {
        const key = keyOf(source);
        expect(partsOf(key)).toEqual(['agent', 'main', source.platform, source.chatType, source.chatId, source.threadId, source.userId]);
      }),
      { numRuns: RUNS },
    );
  });

  it('give different stream names to different sources', () => {
    fc.assert(
      fc.property(groupSource, groupSource, (a, b) => {
        const same = a.platform === b.platform && a.chatType === b.chatType && a.chatId === b.chatId && a.threadId === b.threadId && a.userId === b.userId;
        expect(conversationStreamName(keyOf(a)) === conversationStreamName(keyOf(b))).toBe(same);
      }),
      { numRuns: RUNS },
    );
    // The classic collision of Hermes' key format: an id holding the separator against two ids.
    expect(conversationStreamName(keyOf({ platform: 'slack', chatType: 'group', chatId: 'a:b', threadId: 'c', userId: 'u' }))).not.toBe(
      conversationStreamName(keyOf({ platform: 'slack', chatType: 'group', chatId: 'a', threadId: 'b:c', userId: 'u' })),
    );
  });

  it('name a stream of the default tenant, whole, whatever the ids hold', () => {
    fc.assert(
      fc.property(groupSource, (source) => {
        const stream = conversationStreamName(keyOf(source));
        expect(stream.startsWith('conversation-agent:main:')).toBe(true);
        expect(streamScope(stream)).toEqual({ tenant: '', name: stream });
      }),
      { numRuns: RUNS },
    );
  });

  it("stay inside their tenant's namespace: a scoped name always reads back as that tenant's and that key's", () => {
    // The names API_TOKEN accepts: no '-', which would read as a stream category.
    const tenant = fc.stringMatching(/^[a-z0-9][a-z0-9_]{0,20}$/).filter(isTenantName);
    fc.assert(
      fc.property(groupSource, tenant, tenant, (source, owner, other) => {
        const key = keyOf(source);
        const scoped = conversationStreamName(key, owner);
        expect(streamScope(scoped)).toEqual({ tenant: owner, name: conversationStreamName(key) });
        if (other !== owner) expect(scoped).not.toBe(conversationStreamName(key, other));
        expect(scoped).not.toBe(conversationStreamName(key));
      }),
      { numRuns: RUNS },
    );
  });
});
