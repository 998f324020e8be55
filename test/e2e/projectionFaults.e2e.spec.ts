// Projection faults: a failing projection stops at the event before the fault, shows it (admin, log, /ready), retries, never skips; the others keep going.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

interface ProjectionStatus {
  name: string;
  position: number;
  state: string;
  lastError: string | null;
  failedPosition: number | null;
  consecutiveFailures: number;
  failingSince: string | null;
}

for (const backend of e2eBackends()) {
  describe(`projection faults: ${backend}`, () => {
    let service: TestApp;
    const logLines: Array<Record<string, unknown>> = [];
    let chat = 0;

    beforeAll(async () => {
      const destination = new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n')) if (line.trim()) logLines.push(JSON.parse(line));
          done();
        },
      });
      service = await startTestApp(backend, {
        env: { LOG_LEVEL: 'error', JOB_TICK_INTERVAL_MS: '0', READ_WAIT_TIMEOUT_MS: '2000', PROJECTION_PARK_AFTER_FAILURES: '0' },
        logDestination: destination,
      });
    });
    afterAll(async () => {
      await service?.close();
    });

    const status = async (name: string): Promise<ProjectionStatus> => (await service.request('GET', `/v1/admin/projections/${name}`)).body;
    const until = async <T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => {
      for (let attempt = 0; attempt < 300; attempt++) {
        const value = await probe();
        if (done(value)) return value;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`timed out waiting for ${what}`);
    };
    const resolve = async () => {
      const response = await service.request('POST', '/v1/sessions/resolve', {
        body: { source: { platform: 'cli', chatType: 'dm', chatId: `faults-${backend}-${++chat}` } },
      });
      expect(response.status).toBe(201);
      return response.body as { sessionId: string; sessionKey: string; position: number };
    };
    const schema = () => `"${service.config.readModelSchema}"`;

    it('a transient fault (its table gone) fails only that projection, which retries and then applies every event it missed', async () => {
      const before = await resolve();
      await until(
        () => status('sessions-index'),
        (projection) => projection.position >= before.position,
        'sessions-index to apply the first write',
      );
      await service.infrastructure.readModelPool.query(`ALTER TABLE ${schema()}.session_records RENAME TO session_records_away`);
      let during: { sessionId: string; position: number };
      let failedPosition: number;
      try {
        during = await resolve();
        const failing = await until(
          () => status('sessions-index'),
          (projection) => projection.state === 'failed' && projection.consecutiveFailures >= 2,
          'sessions-index to fail twice',
        );
        expect(failing.lastError).toMatch(/session_records/);
        // The first event of the resolve that needs the table (a resolve writes several).
        expect(failing.failedPosition).toBeGreaterThan(before.position);
        expect(failing.failedPosition).toBeLessThanOrEqual(during.position);
        expect(failing.position).toBeLessThan(failing.failedPosition!);
        failedPosition = failing.failedPosition!;
        expect(failing.failingSince).toEqual(expect.any(String));
        // Another projection went on: the stream index has the new conversation and session.
        const streams = await service.request('GET', `/v1/admin/streams?limit=1000&minPosition=${during.position}`);
        expect(streams.status).toBe(200);
        expect(JSON.stringify(streams.body)).toContain(during.sessionId);
        const ready = await service.request('GET', '/ready');
        expect(ready.status).toBe(503);
        expect(ready.body.checks.projections.states).toContainEqual(expect.objectContaining({ name: 'sessions-index', state: 'failed' }));
      } finally {
        await service.infrastructure.readModelPool.query(`ALTER TABLE ${schema()}.session_records_away RENAME TO session_records`);
      }
      const recovered = await until(
        () => status('sessions-index'),
        (projection) => projection.position >= during.position && projection.state !== 'failed',
        'sessions-index to recover',
      );
      expect(recovered).toMatchObject({ lastError: null, failedPosition: null, consecutiveFailures: 0, failingSince: null });
      expect((await service.request('GET', `/v1/sessions/${during.sessionId}/record?minPosition=${during.position}`)).body).toMatchObject({
        sessionId: during.sessionId,
        status: 'active',
      });
      expect(logLines).toContainEqual(
        expect.objectContaining({ level: 50, projection: 'sessions-index', failedPosition, msg: expect.stringMatching(/retrying without skipping/) }),
      );
      expect((await service.request('GET', '/ready')).status).toBe(200);
    });

    it('with parking off, an event a projection cannot apply (a second SessionCreated on one stream) stops it there for good, while the others keep going', async () => {
      const { sessionId, position } = await resolve();
      await until(
        () => status('session-tree'),
        (projection) => projection.position >= position,
        'session-tree to apply the session',
      );
      const created = (await service.request('GET', `/v1/sessions/${sessionId}/events?limit=1`)).body.events[0];
      expect(created.type).toBe('SessionCreated');
      // The decider never writes this (a session is created once); the tree's row for the id already exists.
      const poison = await service.infrastructure.eventStore.append(
        sessionStreamName(sessionId),
        [{ type: 'SessionCreated', data: created.data, metadata: { schemaVersion: 1, actor: 'fault-test' } }],
        'stream_exists',
      );

      const after = await resolve();
      const child = await service.request('POST', `/v1/sessions/${after.sessionId}/children`, { body: { agentName: 'late' } });
      expect(child.status).toBe(201);

      const failing = await until(
        () => status('session-tree'),
        (projection) => projection.state === 'failed' && projection.consecutiveFailures >= 2,
        'session-tree to fail twice',
      );
      expect(failing.failedPosition).toBe(poison.position);
      expect(failing.lastError).toContain(`could not apply SessionCreated at position ${poison.position}`);
      expect(failing.position).toBeLessThan(poison.position);

      // The others are past the poison and the writes after it.
      for (const name of ['stream-index', 'sessions-index', 'jobs', 'runtime-sessions']) {
        const other = await until(
          () => status(name),
          (projection) => projection.position >= child.body.position,
          `${name} to pass the poison`,
        );
        expect(other.state).not.toBe('failed');
      }
      expect((await service.request('GET', `/v1/sessions/by-key/${encodeURIComponent(after.sessionKey)}?minPosition=${after.position}`)).status).toBe(200);

      // Never skipped: retries keep failing at the same event, and reads of the tree say it has not caught up.
      const later = await until(
        () => status('session-tree'),
        (projection) => projection.consecutiveFailures > failing.consecutiveFailures,
        'another retry',
      );
      expect(later.position).toBe(failing.position);
      expect(later.failedPosition).toBe(poison.position);
      const children = await service.request('GET', `/v1/sessions/${after.sessionId}/children?minPosition=${child.body.position}`, { headers: {} });
      expect(children.status).toBe(503);
      expect(children.body.error.code).toBe('PROJECTION_NOT_CAUGHT_UP');
      expect(logLines.filter((line) => line.projection === 'session-tree' && line.failedPosition === poison.position).length).toBeGreaterThanOrEqual(2);
    });
  });
}
