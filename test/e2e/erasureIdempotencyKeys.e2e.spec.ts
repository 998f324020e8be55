// Erasure and Idempotency-Key over real HTTP: the stored answers of the person's keyed requests (a resolve, a turn, a gateway
// registration naming their chat, one still running) leave idempotency_keys, a retry no longer replays them, and nobody else's go.
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteIdentifier } from '../../src/database/migrate.js';
import { e2eBackends, startTestApp, type TestApp } from '../support/testApp.js';

const ADMIN = `ops-admin-${randomBytes(8).toString('hex')}`;
const WRITER = `gateway-writer-${randomBytes(8).toString('hex')}`;
const ACME = `acme-writer-${randomBytes(8).toString('hex')}`;

/** Digits long enough that no position, count or timestamp holds them by chance. */
const digits = (count: number) => Array.from({ length: count }, (_, index) => String(randomInt(index === 0 ? 1 : 0, 10))).join('');

function person(label: string) {
  const marker = `zq${label}${randomBytes(6).toString('hex')}`;
  return {
    marker,
    source: { platform: 'telegram', chatType: 'dm', chatId: digits(15), userId: `u${digits(14)}`, userName: `Alice ${marker}`, chatName: `Chat of ${marker}` },
  };
}

for (const backend of e2eBackends()) {
  describe(`erasure of stored Idempotency-Key answers: ${backend}`, () => {
    let service: TestApp;
    const keyed = (method: string, path: string, key: string, body: unknown, token = WRITER) =>
      service.request(method, path, { body, headers: { authorization: `Bearer ${token}`, 'idempotency-key': key } });
    const table = () => `${quoteIdentifier(service.config.readModelSchema)}.idempotency_keys`;
    /** Every row of idempotency_keys, as text. */
    const storedRows = async () =>
      (
        await service.infrastructure.readModelPool.query<{ tenant: string; idempotency_key: string; row: string }>(
          `SELECT tenant, idempotency_key, t::text AS row FROM ${table()} AS t`,
        )
      ).rows;

    beforeAll(async () => {
      service = await startTestApp(backend, {
        env: {
          API_TOKEN: `ops:admin=${ADMIN},gateway:write=${WRITER},acme:write:acme=${ACME}`,
          RUNTIME_WATCHDOG_INTERVAL_MS: '0',
          JOB_TICK_INTERVAL_MS: '0',
        },
      });
    });
    afterAll(async () => {
      await service?.close();
    });

    it("deletes the person's stored answers, answered or running, and a retry runs as a new request; others' stay", { timeout: 120_000 }, async () => {
      const alice = person('a');
      const bob = person('b');
      const said = (who: ReturnType<typeof person>, what: string) => `${what} ${who.marker} (call me on ${who.source.chatId})`;
      const turnBody = (who: ReturnType<typeof person>, what: string) => ({
        messages: [
          { role: 'user', content: said(who, what), name: who.source.userName },
          { role: 'assistant', content: said(who, `re ${what}`) },
        ],
      });
      const keys = { resolve: randomUUID(), turn: randomUUID(), running: randomUUID(), home: randomUUID() };
      const bobKeys = { resolve: randomUUID(), turn: randomUUID() };
      const acmeKey = randomUUID();

      // Alice: a keyed resolve, a keyed turn, and a gateway registering her DM as its home channel.
      const resolveBody = { source: alice.source, gatewayId: 'gw-keys' };
      const resolved = await keyed('POST', '/v1/sessions/resolve', keys.resolve, resolveBody);
      expect(resolved.status, resolved.text).toBe(201);
      const aliceKey: string = resolved.body.sessionKey;
      const aliceSession: string = resolved.body.sessionId;
      const turnPath = `/v1/sessions/${aliceSession}/turns`;
      const turned = await keyed('POST', turnPath, keys.turn, turnBody(alice, 'hello'));
      expect(turned.status, turned.text).toBeLessThan(300);
      const stillRunning = await keyed('POST', turnPath, keys.running, turnBody(alice, 'second'));
      expect(stillRunning.status, stillRunning.text).toBeLessThan(300);
      const homeBody = { platforms: [{ platform: 'telegram', homeChannel: { chatId: alice.source.chatId, name: `DM with ${alice.marker}` } }] };
      const homePath = `/v1/gateways/gw-keys-${randomBytes(4).toString('hex')}/platforms`;
      const registered = await keyed('PUT', homePath, keys.home, homeBody);
      expect(registered.status, registered.text).toBeLessThan(300);

      // Bob, same tenant, and the same chat in another tenant (another bot's user): their answers must stay.
      const bobResolved = await keyed('POST', '/v1/sessions/resolve', bobKeys.resolve, { source: bob.source });
      expect(bobResolved.status, bobResolved.text).toBe(201);
      const bobTurnBody = turnBody(bob, 'hi');
      const bobTurned = await keyed('POST', `/v1/sessions/${bobResolved.body.sessionId}/turns`, bobKeys.turn, bobTurnBody);
      expect(bobTurned.status, bobTurned.text).toBeLessThan(300);
      const acmeBody = { source: alice.source };
      const acmeResolved = await keyed('POST', '/v1/sessions/resolve', acmeKey, acmeBody, ACME);
      expect(acmeResolved.status, acmeResolved.text).toBe(201);

      // A keyed request of Alice's in flight during the erasure: its row is back to running (no answer yet, lease held).
      await service.infrastructure.readModelPool.query(
        `UPDATE ${table()} SET status = NULL, body = NULL, completed_at = NULL, lease_until = $2 WHERE tenant = '' AND idempotency_key = $1`,
        [keys.running, new Date(Date.now() + 3_600_000)],
      );
      const aliceValues = [aliceKey, aliceSession, alice.source.chatId, alice.source.userId, alice.marker];
      const holdingAlice = async () => (await storedRows()).filter(({ tenant, row }) => tenant === '' && aliceValues.some((value) => row.includes(value)));
      // Before: the resolve's and the registration's answers name her; the turn's answer (counters) and the running
      // one hold nothing of hers, but they are her requests (their events carry their keys' tags).
      expect((await holdingAlice()).map((row) => row.idempotency_key).sort()).toEqual([keys.resolve, keys.home].sort());
      expect(new Set((await storedRows()).map((row) => row.idempotency_key))).toEqual(expect.objectContaining({ size: 7 }));

      const erased = await service.request('POST', '/v1/admin/erase', { body: { sessionKey: aliceKey }, headers: { authorization: `Bearer ${ADMIN}` } });
      expect(erased.status, erased.text).toBe(200);

      // (a) No row of the tenant names her any more, and none of her keys is left, running or answered.
      expect(await holdingAlice()).toEqual([]);
      const left = new Set((await storedRows()).filter(({ tenant }) => tenant === '').map((row) => row.idempotency_key));
      for (const key of Object.values(keys)) expect(left.has(key), key).toBe(false);
      // The answer counts them: the resolve's, the turn's, the running one's and the registration's.
      expect(erased.body.storedAnswersRemoved).toBe(4);
      // A retry of the erasure answers its result again.
      const again = await service.request('POST', '/v1/admin/erase', { body: { sessionKey: aliceKey }, headers: { authorization: `Bearer ${ADMIN}` } });
      expect(again.status, again.text).toBe(200);
      expect(again.body).toEqual(erased.body);

      // (b) Retries run as new requests: nothing replayed, nothing of hers in the answers.
      const retriedResolve = await keyed('POST', '/v1/sessions/resolve', keys.resolve, resolveBody);
      expect(retriedResolve.headers.get('idempotent-replayed')).toBeNull();
      expect(retriedResolve.status, retriedResolve.text).toBe(201);
      expect(retriedResolve.body.sessionId).not.toBe(aliceSession);
      const retriedTurn = await keyed('POST', turnPath, keys.turn, turnBody(alice, 'hello'));
      expect(retriedTurn.headers.get('idempotent-replayed')).toBeNull();
      expect(retriedTurn.status, retriedTurn.text).toBe(409);
      expect(retriedTurn.body.error.code).toBe('SESSION_DESTROYED');
      expect(retriedTurn.text).not.toContain(alice.marker);
      const retriedRunning = await keyed('POST', turnPath, keys.running, turnBody(alice, 'second'));
      expect(retriedRunning.status, retriedRunning.text).toBe(409);
      expect(retriedRunning.body.error.code).toBe('SESSION_DESTROYED');

      // (c) Bob's answers and the other tenant's are replayed as they were.
      const bobRetried = await keyed('POST', '/v1/sessions/resolve', bobKeys.resolve, { source: bob.source });
      expect(bobRetried.headers.get('idempotent-replayed')).toBe('true');
      expect(bobRetried.text).toBe(bobResolved.text);
      const bobTurnRetried = await keyed('POST', `/v1/sessions/${bobResolved.body.sessionId}/turns`, bobKeys.turn, bobTurnBody);
      expect(bobTurnRetried.headers.get('idempotent-replayed')).toBe('true');
      expect(bobTurnRetried.text).toBe(bobTurned.text);
      const acmeRetried = await keyed('POST', '/v1/sessions/resolve', acmeKey, acmeBody, ACME);
      expect(acmeRetried.headers.get('idempotent-replayed')).toBe('true');
      expect(acmeRetried.text).toBe(acmeResolved.text);
      expect(acmeRetried.text).toContain(alice.source.chatId);
    });
  });
}
