// Erasure and Idempotency-Key over real HTTP: the stored answers of the person's keyed requests (a resolve, a turn, a gateway
// registration naming their chat, one still running) leave idempotency_keys, a retry no longer replays them, and nobody else's go.
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import type { LedgerClient, RecordTurnRequest } from '../../src/client/index.js';
import { quoteIdentifier } from '../../src/database/migrate.js';
import { forEachBackend } from '../support/forEachBackend.js';
import { telegramSource } from '../support/sources.js';

const ADMIN = `ops-admin-${randomBytes(8).toString('hex')}`;
const WRITER = `gateway-writer-${randomBytes(8).toString('hex')}`;
const ACME = `acme-writer-${randomBytes(8).toString('hex')}`;

/** Digits long enough that no position, count or timestamp holds them by chance. */
const digits = (count: number) => Array.from({ length: count }, (_, index) => String(randomInt(index === 0 ? 1 : 0, 10))).join('');

function person(label: string) {
  const marker = `zq${label}${randomBytes(6).toString('hex')}`;
  const chatId = digits(15);
  return {
    marker,
    // chatId and userId typed as present: the test looks for them in the stored rows.
    source: { ...telegramSource(chatId, { userName: `Alice ${marker}`, chatName: `Chat of ${marker}` }), chatId, userId: `u${digits(14)}` },
  };
}

forEachBackend(
  'erasure of stored Idempotency-Key answers',
  (ledger) => {
    /** Typed clients with the gateway's and the operator's tokens. */
    let writer: LedgerClient;
    let admin: LedgerClient;
    // Raw where the test reads what a client hides: the Idempotent-Replayed header, the answer's exact text.
    const keyed = (method: string, path: string, key: string, body: unknown, token = WRITER) =>
      ledger.service.request(method, path, { body, headers: { authorization: `Bearer ${token}`, 'idempotency-key': key } });
    const table = () => `${quoteIdentifier(ledger.service.config.readModelSchema)}.idempotency_keys`;
    /** Every row of idempotency_keys, as text. */
    const storedRows = async () =>
      (
        await ledger.service.infrastructure.readModelPool.query<{ tenant: string; idempotency_key: string; row: string }>(
          `SELECT tenant, idempotency_key, t::text AS row FROM ${table()} AS t`,
        )
      ).rows;

    beforeAll(() => {
      writer = ledger.newClient({ token: WRITER });
      admin = ledger.newClient({ token: ADMIN });
    });

    it("deletes the person's stored answers, answered or running, and a retry runs as a new request; others' stay", { timeout: 120_000 }, async () => {
      const alice = person('a');
      const bob = person('b');
      const said = (who: ReturnType<typeof person>, what: string) => `${what} ${who.marker} (call me on ${who.source.chatId})`;
      const turnBody = (who: ReturnType<typeof person>, what: string): RecordTurnRequest => ({
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
      const resolved = await writer.resolveSession(resolveBody, { idempotencyKey: keys.resolve });
      expect(resolved.created).toBe(true);
      const aliceKey = resolved.sessionKey;
      const aliceSession = resolved.sessionId;
      const turnPath = `/v1/sessions/${aliceSession}/turns`;
      await writer.recordTurn(aliceSession, turnBody(alice, 'hello'), { idempotencyKey: keys.turn });
      await writer.recordTurn(aliceSession, turnBody(alice, 'second'), { idempotencyKey: keys.running });
      const homeBody = { platforms: [{ platform: 'telegram', homeChannel: { chatId: alice.source.chatId, name: `DM with ${alice.marker}` } }] };
      await writer.gatewayPlatforms(`gw-keys-${randomBytes(4).toString('hex')}`, homeBody, { idempotencyKey: keys.home });

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
      await ledger.service.infrastructure.readModelPool.query(
        `UPDATE ${table()} SET status = NULL, body = NULL, completed_at = NULL, lease_until = $2 WHERE tenant = '' AND idempotency_key = $1`,
        [keys.running, new Date(Date.now() + 3_600_000)],
      );
      const aliceValues = [aliceKey, aliceSession, alice.source.chatId, alice.source.userId, alice.marker];
      const holdingAlice = async () => (await storedRows()).filter(({ tenant, row }) => tenant === '' && aliceValues.some((value) => row.includes(value)));
      // Before: the resolve's and the registration's answers name her; the turn's answer (counters) and the running
      // one hold nothing of hers, but they are her requests (their events carry their keys' tags).
      expect((await holdingAlice()).map((row) => row.idempotency_key).sort()).toEqual([keys.resolve, keys.home].sort());
      expect(new Set((await storedRows()).map((row) => row.idempotency_key))).toEqual(expect.objectContaining({ size: 7 }));

      const erased = await admin.eraseConversation({ sessionKey: aliceKey });

      // (a) No row of the tenant names her any more, and none of her keys is left, running or answered.
      expect(await holdingAlice()).toEqual([]);
      const left = new Set((await storedRows()).filter(({ tenant }) => tenant === '').map((row) => row.idempotency_key));
      for (const key of Object.values(keys)) expect(left.has(key), key).toBe(false);
      // The answer counts them: the resolve's, the turn's, the running one's and the registration's.
      expect(erased.storedAnswersRemoved).toBe(4);
      // A retry of the erasure answers its result again.
      expect(await admin.eraseConversation({ sessionKey: aliceKey })).toEqual(erased);

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
  },
  {
    env: {
      API_TOKEN: `ops:admin=${ADMIN},gateway:write=${WRITER},acme:write:acme=${ACME}`,
      RUNTIME_WATCHDOG_INTERVAL_MS: '0',
      JOB_TICK_INTERVAL_MS: '0',
    },
  },
);
