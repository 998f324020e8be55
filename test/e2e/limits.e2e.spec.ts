// Every configurable limit over real HTTP: its own 4xx code, and a refused request writes nothing.
import { connect } from 'node:net';
import { expect, it } from 'vitest';
import type { MessageInput } from '../../src/client/index.js';
import { forEachBackend } from '../support/forEachBackend.js';
import { sourceOn } from '../support/sources.js';

const enc = encodeURIComponent;

forEachBackend(
  'limits',
  (ledger) => {
    let chat = 0;

    const newSession = async () => {
      const resolved = await ledger.client.resolveSession({ source: sourceOn('cli', `limits-${++chat}`) });
      expect(resolved.created).toBe(true);
      return resolved;
    };
    const messages = (count: number, content = 'hi') => Array.from({ length: count }, (): MessageInput => ({ role: 'user', content }));
    const turn = (sessionId: string, count: number, content?: string) => ledger.client.recordTurn(sessionId, { messages: messages(count, content) });

    /**
     * Sends a request the service must refuse with `status` and `code`, and checks the log did not move. Raw: the
     * error body itself must carry the requestId (the typed client falls back to the X-Request-Id header).
     */
    const refused = async (
      status: number,
      code: string,
      method: string,
      path: string,
      options: { body?: unknown; rawBody?: string; headers?: Record<string, string> },
    ) => {
      const before = await ledger.service.lastPosition();
      const response = await ledger.service.request(method, path, options);
      expect(response.status, response.text).toBe(status);
      expect(response.body.error.code).toBe(code);
      expect(response.body.error.requestId).toEqual(expect.any(String));
      expect(await ledger.service.lastPosition()).toBe(before);
      return response;
    };

    it('body size: 413 PAYLOAD_TOO_LARGE beyond BODY_LIMIT', async () => {
      const { sessionId } = await newSession();
      await refused(413, 'PAYLOAD_TOO_LARGE', 'POST', `/v1/sessions/${sessionId}/turns`, {
        body: { messages: [{ role: 'user', content: 'x'.repeat(20_000) }] },
      });
    });

    it('body size: a Content-Length beyond BODY_LIMIT is refused with 413 at once, before any of the body is read', async () => {
      const { sessionId } = await newSession();
      const before = await ledger.service.lastPosition();
      const { port } = new URL(ledger.service.url);
      const started = Date.now();
      // Declares 100 MB and sends 16 bytes of it: the answer must not wait for the rest.
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let text = '';
        const timer = setTimeout(() => {
          socket.destroy();
          resolve(text);
        }, 5_000);
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('error', reject);
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(text);
        });
        socket.write(
          `POST /v1/sessions/${sessionId}/turns HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{"messages": [  `,
        );
      });
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
      expect(answer).toMatch(/connection: close/i);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string; details: unknown } };
      expect(body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 16_384, contentLength: 100_000_000 } });
      expect(body.error.message).toMatch(/BODY_LIMIT/);
      expect(await ledger.service.lastPosition()).toBe(before);
    });

    it('messages per turn: 413 TOO_MANY_MESSAGES beyond MAX_MESSAGES_PER_TURN', async () => {
      const { sessionId } = await newSession();
      await turn(sessionId, 3);
      const response = await refused(413, 'TOO_MANY_MESSAGES', 'POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: messages(4) } });
      expect(response.body.error.details).toEqual({ count: 4, limit: 3 });
    });

    it('message size: 413 MESSAGE_TOO_LARGE beyond MAX_MESSAGE_BYTES, counted in UTF-8 bytes, in turns, rewrites and the queue', async () => {
      const { sessionId, sessionKey } = await newSession();
      // 150 three-byte characters: 450 bytes of content, under 512 with the JSON around it only as ASCII would be.
      await turn(sessionId, 1, '€'.repeat(150));
      const tooBig = '€'.repeat(200);
      const response = await refused(413, 'MESSAGE_TOO_LARGE', 'POST', `/v1/sessions/${sessionId}/turns`, {
        body: { messages: [...messages(1), { role: 'user', content: tooBig }] },
      });
      expect(response.body.error.details).toMatchObject({ index: 1, limit: 512 });
      await refused(413, 'MESSAGE_TOO_LARGE', 'PUT', `/v1/sessions/${sessionId}/transcript`, { body: { messages: [{ role: 'system', content: tooBig }] } });
      await refused(413, 'MESSAGE_TOO_LARGE', 'POST', `/v1/conversations/${enc(sessionKey)}/queue`, { body: { message: { text: tooBig } } });
    });

    it('transcript length: 409 TRANSCRIPT_FULL beyond MAX_TRANSCRIPT_MESSAGES, soft-deleted messages included; a reset starts afresh', async () => {
      const { sessionId, sessionKey } = await newSession();
      for (let index = 0; index < 2; index++) await turn(sessionId, 3);
      const response = await refused(409, 'TRANSCRIPT_FULL', 'POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: messages(1) } });
      expect(response.body.error.details).toMatchObject({ held: 6, adding: 1, limit: 6 });
      await ledger.client.rewind(sessionId, { turns: 1 });
      await refused(409, 'TRANSCRIPT_FULL', 'POST', `/v1/sessions/${sessionId}/turns`, { body: { messages: messages(1) } });
      const reset = await ledger.client.resetConversation(sessionKey);
      await turn(reset.sessionId, 3);
    });

    it('queue depth: 429 QUEUE_FULL beyond QUEUE_CAP', async () => {
      const { sessionKey } = await newSession();
      for (let index = 0; index < 2; index++) await ledger.client.enqueue(sessionKey, { message: { text: `m${index}` }, mode: 'queue' });
      await refused(429, 'QUEUE_FULL', 'POST', `/v1/conversations/${enc(sessionKey)}/queue`, { body: { message: { text: 'one too many' }, mode: 'queue' } });
    });

    it('children per session: 409 TOO_MANY_CHILDREN beyond MAX_CHILDREN_PER_SESSION, forks included', async () => {
      const { sessionId } = await newSession();
      await ledger.client.createChild(sessionId, { agentName: 'a' });
      await ledger.client.forkSession(sessionId);
      await refused(409, 'TOO_MANY_CHILDREN', 'POST', `/v1/sessions/${sessionId}/children`, { body: { agentName: 'b' } });
      await refused(409, 'TOO_MANY_CHILDREN', 'POST', `/v1/sessions/${sessionId}/fork`, { body: {} });
    });

    it('tree depth: 409 TREE_TOO_DEEP below MAX_TREE_DEPTH', async () => {
      const { sessionId: root } = await newSession();
      const first = await ledger.client.createChild(root, { agentName: 'one' });
      const second = await ledger.client.forkSession(first.sessionId);
      const response = await refused(409, 'TREE_TOO_DEEP', 'POST', `/v1/sessions/${second.sessionId}/children`, { body: { agentName: 'three' } });
      expect(response.body.error.details).toMatchObject({ depth: 3, limit: 2 });
    });
  },
  {
    env: {
      BODY_LIMIT: '16kb',
      MAX_MESSAGES_PER_TURN: '3',
      MAX_MESSAGE_BYTES: '512',
      MAX_TRANSCRIPT_MESSAGES: '6',
      QUEUE_CAP: '2',
      MAX_CHILDREN_PER_SESSION: '2',
      MAX_TREE_DEPTH: '2',
      JOB_TICK_INTERVAL_MS: '0',
    },
  },
);
