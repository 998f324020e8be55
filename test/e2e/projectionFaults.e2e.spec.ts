// Projection faults: a failing projection stops at the event before the fault, shows it (admin, log, /ready), retries, never skips; the others keep going.
import { Writable } from 'node:stream';
import { expect, it } from 'vitest';
import { sessionStreamName } from '../../src/events/session/sessionEvents.js';
import { forEachBackend, refusalOf } from '../support/forEachBackend.js';
import { sourceOn } from '../support/sources.js';
import type { BackendLabel } from '../support/testDatabases.js';

/** Each backend's service's JSON log lines. */
const logLinesOf = new Map<BackendLabel, Array<Record<string, unknown>>>();
const collectLog = (backend: BackendLabel) => {
  const lines: Array<Record<string, unknown>> = [];
  logLinesOf.set(backend, lines);
  return new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
};

forEachBackend(
  'projection faults',
  (ledger) => {
    let chat = 0;
    const logLines = () => logLinesOf.get(ledger.backend)!;

    const status = (name: string) => ledger.client.getProjection(name);
    const until = async <T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => {
      for (let attempt = 0; attempt < 300; attempt++) {
        const value = await probe();
        if (done(value)) return value;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`timed out waiting for ${what}`);
    };
    const resolve = async () => {
      const resolved = await ledger.client.resolveSession({ source: sourceOn('cli', `faults-${ledger.backend}-${++chat}`) });
      expect(resolved.created).toBe(true);
      return resolved;
    };
    const schema = () => `"${ledger.service.config.readModelSchema}"`;

    it('a transient fault (its table gone) fails only that projection, which retries and then applies every event it missed', async () => {
      const { client, service } = ledger;
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
        const streams = await client.listStreams({ limit: 1000 }, { minPosition: during.position });
        expect(JSON.stringify(streams)).toContain(during.sessionId);
        // Raw: the typed client throws on a 503 and keeps none of the checks it answers.
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
      expect(await client.sessionRecord(during.sessionId, { minPosition: during.position })).toMatchObject({
        sessionId: during.sessionId,
        status: 'active',
      });
      expect(logLines()).toContainEqual(
        expect.objectContaining({ level: 50, projection: 'sessions-index', failedPosition, msg: expect.stringMatching(/retrying without skipping/) }),
      );
      await client.ready();
    });

    it('with parking off, an event a projection cannot apply (a second SessionCreated on one stream) stops it there for good, while the others keep going', async () => {
      const { client, service } = ledger;
      const { sessionId, position } = await resolve();
      await until(
        () => status('session-tree'),
        (projection) => projection.position >= position,
        'session-tree to apply the session',
      );
      const created = (await client.sessionEvents(sessionId, { limit: 1 })).events[0]!;
      expect(created.type).toBe('SessionCreated');
      // The decider never writes this (a session is created once); the tree's row for the id already exists.
      const poison = await service.infrastructure.eventStore.append(
        sessionStreamName(sessionId),
        [{ type: 'SessionCreated', data: created.data, metadata: { schemaVersion: 1, actor: 'fault-test' } }],
        'stream_exists',
      );

      const after = await resolve();
      const child = await client.createChild(after.sessionId, { agentName: 'late' });

      const failing = await until(
        () => status('session-tree'),
        (projection) => projection.state === 'failed' && projection.consecutiveFailures >= 2,
        'session-tree to fail twice',
      );
      expect(failing.failedPosition).toBe(poison.position);
      expect(failing.lastError).toContain(`could not apply SessionCreated at position ${poison.position}`);
      expect(failing.position).toBeLessThan(poison.position);
      // Not ready: the typed client's probe throws the 503 with the answer's checks, the failed projection named.
      const notReady = await client.ready().then(
        () => null,
        (error: unknown) => error,
      );
      expect(notReady).toMatchObject({
        status: 503,
        details: {
          status: 'not_ready',
          checks: { projections: { ok: false, states: expect.arrayContaining([expect.objectContaining({ name: 'session-tree', state: 'failed' })]) } },
        },
      });

      // The others are past the poison and the writes after it.
      for (const name of ['stream-index', 'sessions-index', 'jobs', 'runtime-sessions']) {
        const other = await until(
          () => status(name),
          (projection) => projection.position >= child.position,
          `${name} to pass the poison`,
        );
        expect(other.state).not.toBe('failed');
      }
      // Raw: the index's entry at the path the typed client does not use.
      expect((await service.request('GET', `/v1/sessions/by-key/${encodeURIComponent(after.sessionKey)}?minPosition=${after.position}`)).status).toBe(200);

      // Never skipped: retries keep failing at the same event, and reads of the tree say it has not caught up.
      const later = await until(
        () => status('session-tree'),
        (projection) => projection.consecutiveFailures > failing.consecutiveFailures,
        'another retry',
      );
      expect(later.position).toBe(failing.position);
      expect(later.failedPosition).toBe(poison.position);
      expect(await refusalOf(client.listChildren(after.sessionId, {}, { minPosition: child.position }))).toEqual({
        status: 503,
        code: 'PROJECTION_NOT_CAUGHT_UP',
      });
      expect(logLines().filter((line) => line.projection === 'session-tree' && line.failedPosition === poison.position).length).toBeGreaterThanOrEqual(2);
    });
  },
  (backend) => ({
    env: { LOG_LEVEL: 'error', JOB_TICK_INTERVAL_MS: '0', READ_WAIT_TIMEOUT_MS: '2000', PROJECTION_PARK_AFTER_FAILURES: '0' },
    logDestination: collectLog(backend),
  }),
);
