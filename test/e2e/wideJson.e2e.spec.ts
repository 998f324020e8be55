// Free-form JSON fields given a million-element array or a million-key object, each just under BODY_LIMIT: every
// field takes it or refuses it with a 4xx naming its limit, never a 500.
import { beforeAll, expect, it } from 'vitest';
import { forEachBackend } from '../support/forEachBackend.js';
import { sourceOn } from '../support/sources.js';

const enc = encodeURIComponent;
const BODY_LIMIT_BYTES = 12 * 1024 * 1024;
const MILLION = 1_000_000;
/** Room left under the limit for the rest of the body around the value. */
const ENVELOPE = 4_096;

/** The entries joined in `open`…`close`, the first one padded so that the whole is ENVELOPE bytes short of the limit. */
function padded(open: string, close: string, entries: string[], padFirst: (extra: number) => string): string {
  const length = open.length + close.length + entries.reduce((sum, entry) => sum + entry.length, 0) + entries.length - 1;
  entries[0] = padFirst(BODY_LIMIT_BYTES - ENVELOPE - length);
  return `${open}${entries.join(',')}${close}`;
}

/** `[…]` of a million short strings. */
function millionElementArray(): string {
  const pad = Math.floor((BODY_LIMIT_BYTES - ENVELOPE) / MILLION) - 3;
  const entries = Array.from({ length: MILLION }, () => JSON.stringify('x'.repeat(pad)));
  return padded('[', ']', entries, (extra) => JSON.stringify('x'.repeat(pad + extra)));
}

/** `{…}` of a million distinct keys. */
function millionKeyObject(): string {
  const keyOf = (index: number) => `k${index.toString(36).padStart(4, '0')}`;
  const pad = Math.floor((BODY_LIMIT_BYTES - ENVELOPE) / MILLION) - (keyOf(0).length + 2) - 1 - 2 - 1;
  const entry = (index: number, extra = 0) => `"${keyOf(index)}":${JSON.stringify('y'.repeat(pad + extra))}`;
  const entries = Array.from({ length: MILLION }, (_, index) => entry(index));
  return padded('{', '}', entries, (extra) => entry(0, extra));
}

forEachBackend(
  'wide JSON values',
  (ledger) => {
    let chat = 0;
    const shapes: Array<[string, string]> = [];

    beforeAll(() => {
      shapes.push(['a million-element array', millionElementArray()], ['a million-key object', millionKeyObject()]);
    });

    const newSession = async () => {
      const resolved = await ledger.client.resolveSession({ source: sourceOn('cli', `wide-${++chat}`) });
      expect(resolved.created).toBe(true);
      return resolved;
    };

    /** Sends the raw body (as built, byte for byte, which the typed client never sends): accepted with `accepted`, or refused with 4xx `code` naming the limit; nothing written on a refusal. */
    const sendWide = async (method: string, path: string, body: string, expected: { accepted: number } | { code: string; limit: RegExp }) => {
      expect(body.length).toBeLessThan(BODY_LIMIT_BYTES);
      expect(body.length).toBeGreaterThan(BODY_LIMIT_BYTES - 2 * ENVELOPE);
      const before = await ledger.service.lastPosition();
      const answer = await ledger.service.request(method, path, { rawBody: body, headers: { 'content-type': 'application/json' } });
      if ('accepted' in expected) {
        expect(answer.status, `${method} ${path}: ${answer.text.slice(0, 300)}`).toBe(expected.accepted);
        return answer;
      }
      expect([answer.status, answer.body?.error?.code], `${method} ${path}: ${answer.text.slice(0, 300)}`).toEqual([413, expected.code]);
      expect(answer.body.error.message).toMatch(expected.limit);
      expect(await ledger.service.lastPosition()).toBe(before);
      return answer;
    };

    it('takes either as a memory value, and reads the array back whole', { timeout: 300_000 }, async () => {
      const { sessionId } = await newSession();
      // The array last, to read it back.
      for (const [, value] of [...shapes].reverse()) await sendWide('PUT', `/v1/sessions/${sessionId}/memory/wide`, `{"value":${value}}`, { accepted: 200 });
      const read = await ledger.client.sessionMemory(sessionId);
      expect(JSON.stringify(read.entries[0]!.value)).toBe(shapes[0]![1]);
    });

    it(
      'refuses either in a message or a queued message (content, metadata, media) with 413 MESSAGE_TOO_LARGE naming MAX_MESSAGE_BYTES',
      { timeout: 300_000 },
      async () => {
        const { sessionId, sessionKey } = await newSession();
        const tooLarge = { code: 'MESSAGE_TOO_LARGE', limit: /the limit is 262144/ };
        const [[, array], [, object]] = shapes as [[string, string], [string, string]];
        await sendWide('POST', `/v1/sessions/${sessionId}/turns`, `{"messages":[{"role":"user","content":${array}}]}`, tooLarge);
        await sendWide('POST', `/v1/sessions/${sessionId}/turns`, `{"messages":[{"role":"user","content":"x","metadata":${object}}]}`, tooLarge);
        await sendWide('POST', `/v1/conversations/${enc(sessionKey)}/queue`, `{"message":{"text":"x","media":[${array}]}}`, tooLarge);
        await sendWide('POST', `/v1/conversations/${enc(sessionKey)}/queue`, `{"message":{"text":"x","metadata":${object}}}`, tooLarge);
      },
    );
  },
  { env: { BODY_LIMIT: String(BODY_LIMIT_BYTES), JOB_TICK_INTERVAL_MS: '0' } },
);
