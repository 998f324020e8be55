// Google ADK's DatabaseSessionService (MikroORM's PostgreSQL driver) on a schema of its own, used as ADK's Runner uses it.
import { randomUUID } from 'node:crypto';
import { createEvent, DatabaseSessionService } from '@google/adk';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { TURN } from '../turnMessages.js';
import type { PeerLibrary } from './peerLibrary.js';

const APP_NAME = 'bench';
const AGENT_NAME = 'assistant';

export interface AdkSession {
  userId: string;
  sessionId: string;
}

/**
 * Each conversation is its own user, as each of the ledger's created conversations is a direct chat with a new user.
 * MikroORM's own pool (10 connections by default, the ledger's default too); the schema must exist.
 */
export async function openAdkPeer(postgresUrl: string, schema: string): Promise<PeerLibrary<AdkSession>> {
  const service = new DatabaseSessionService({ driver: PostgreSqlDriver, clientUrl: postgresUrl, schema });
  await service.init();
  const read = async ({ userId, sessionId }: AdkSession) => {
    const session = await service.getSession({ appName: APP_NAME, userId, sessionId });
    if (!session) throw new Error(`ADK has no session ${sessionId}`);
    return session;
  };
  return {
    name: 'ADK',
    calls: { create: 'createSession', turn: 'getSession + 2 appendEvent', load: 'getSession' },
    async createSession(name) {
      const session = await service.createSession({ appName: APP_NAME, userId: name });
      return { userId: name, sessionId: session.id };
    },
    async recordTurn(names) {
      // As ADK's Runner records a turn: the whole session read, then the user's message and each model event appended.
      const session = await read(names);
      const invocationId = `e-${randomUUID()}`;
      await service.appendEvent({
        session,
        event: createEvent({ invocationId, author: 'user', content: { role: 'user', parts: [{ text: TURN.user }] } }),
      });
      await service.appendEvent({
        session,
        event: createEvent({
          invocationId,
          author: AGENT_NAME,
          content: { role: 'model', parts: [{ text: TURN.reply }] },
          usageMetadata: {
            promptTokenCount: TURN.usage.inputTokens,
            candidatesTokenCount: TURN.usage.outputTokens,
            totalTokenCount: TURN.usage.inputTokens + TURN.usage.outputTokens,
          },
        }),
      });
    },
    async loadSession(names) {
      await read(names);
    },
    // DatabaseSessionService has no close of its own: its MikroORM instance (a private field) holds the pool.
    close: () => (service as unknown as { orm?: { close(force?: boolean): Promise<void> } }).orm?.close(true) ?? Promise.resolve(),
  };
}
