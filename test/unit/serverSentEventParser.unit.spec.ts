// The client's text/event-stream parser: fields, comments, ids without data, line endings, chunks split anywhere.
import { describe, expect, it } from 'vitest';
import { ServerSentEventParser } from '../../src/client/serverSentEventParser.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('server-sent event parser', () => {
  it('parses events, skips comments, keeps the last id and the retry hint', () => {
    const parser = new ServerSentEventParser();
    const events = parser.push(bytes(': from position 7\nid: 7\nretry: 2000\n\nid: 8\nevent: Suspended\ndata: {"a":1}\n\n: heartbeat\n\n'));
    expect(events).toEqual([{ id: '8', event: 'Suspended', data: '{"a":1}' }]);
    expect(parser.lastEventId).toBe('8');
    expect(parser.retryMs).toBe(2000);
  });

  it('moves the last id on an id-only block without dispatching anything', () => {
    const parser = new ServerSentEventParser();
    expect(parser.push(bytes('id: 42\n\n'))).toEqual([]);
    expect(parser.lastEventId).toBe('42');
    // Later events without an id of their own carry the last one, as the standard says.
    expect(parser.push(bytes('data: x\n\n'))).toEqual([{ id: '42', event: 'message', data: 'x' }]);
  });

  it('joins multi-line data, takes CRLF and CR line endings, and events split across chunks at any byte', () => {
    const text = 'event: a\r\ndata: one\r\ndata: two\r\n\r\nevent: b\rdata: ü\r\r\n';
    const whole = new ServerSentEventParser().push(bytes(text));
    expect(whole).toEqual([
      { id: undefined, event: 'a', data: 'one\ntwo' },
      { id: undefined, event: 'b', data: 'ü' },
    ]);
    const encoded = bytes(text);
    for (let cut = 1; cut < encoded.length; cut++) {
      const parser = new ServerSentEventParser();
      const events = [...parser.push(encoded.subarray(0, cut)), ...parser.push(encoded.subarray(cut))];
      expect(events, `cut at ${cut}`).toEqual(whole);
    }
  });

  it('ignores unknown fields, a non-numeric retry and an id holding NUL', () => {
    const parser = new ServerSentEventParser();
    expect(parser.push(bytes('id: 5\n\nfoo: bar\nretry: soon\nid: a\u0000b\ndata\n\n'))).toEqual([{ id: '5', event: 'message', data: '' }]);
    expect(parser.retryMs).toBeUndefined();
  });
});
