// A write load for fault tests: clients resolve and record turns with unique texts, and keep score of what the service answered.
import { expect } from 'vitest';
import type { StoredTurn } from './storedTurns.js';
export type Outcome = 'acknowledged' | 'refused' | 'unavailable' | 'failed' | 'lost';

export interface AcknowledgedTurn {
  sessionId: string;
  text: string;
  revision: number;
}

export interface LoadScore {
  acknowledged: AcknowledgedTurn[];
  /** Turns answered 4xx: they must not be in the log. */
  refused: string[];
  /** Turns answered 503 (with their codes): their outcome is unknown to the client, so at most once. */
  unavailable: string[];
  unavailableCodes: Set<string>;
  /** Anything 5xx but 503, with its body: never acceptable. */
  failures: Array<{ status: number; body: unknown; path: string }>;
  /** Requests that got no answer at all (the connection to the service broke). */
  lost: number;
  requests: number;
}

export function emptyScore(): LoadScore {
  return { acknowledged: [], refused: [], unavailable: [], unavailableCodes: new Set(), failures: [], lost: 0, requests: 0 };
}

async function post(score: LoadScore, url: string, path: string, body: unknown): Promise<{ status: number; body: any } | 'lost'> {
  score.requests += 1;
  try {
    const response = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : undefined;
    if (response.status === 503) score.unavailableCodes.add(parsed?.error?.code ?? 'NO_CODE');
    else if (response.status >= 500) score.failures.push({ status: response.status, body: parsed, path });
    return { status: response.status, body: parsed };
  } catch {
    score.lost += 1;
    return 'lost';
  }
}

/**
 * Starts `clients` loops over `conversations` chats (several clients per chat, so they race) until the returned
 * stop function is called. `baseUrl` is read on every request, so a restarted service on a new port is followed.
 */
export function startWriteLoad(options: {
  baseUrl: () => string;
  score: LoadScore;
  clients: number;
  conversations: number;
  label: string;
}): () => Promise<void> {
  const { score } = options;
  let running = true;
  const loops = Array.from({ length: options.clients }, async (_, client) => {
    for (let counter = 0; running; counter++) {
      const url = options.baseUrl();
      const resolved = await post(score, url, '/v1/sessions/resolve', {
        source: { platform: 'cli', chatType: 'dm', chatId: `${options.label}-${client % options.conversations}` },
      });
      if (resolved === 'lost' || resolved.status >= 300) {
        if (resolved === 'lost' || resolved.status >= 500) await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      const text = `${options.label}-c${client}-${counter}`;
      const turn = await post(score, url, `/v1/sessions/${resolved.body.sessionId}/turns`, { messages: [{ role: 'user', content: text }] });
      if (turn === 'lost') continue;
      if (turn.status === 201) score.acknowledged.push({ sessionId: resolved.body.sessionId, text, revision: turn.body.revision });
      else if (turn.status === 503) score.unavailable.push(text);
      else if (turn.status < 500) score.refused.push(text);
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}

/**
 * Against the log as stored: no 5xx but 503, no request left unanswered, every acknowledged turn exactly once where
 * the service said, nothing refused, and each 503 (outcome unknown to the client) at most once.
 */
export function expectNothingLost(score: LoadScore, stored: Map<string, StoredTurn[]>): void {
  expect(score.failures, JSON.stringify(score.failures.slice(0, 3))).toEqual([]);
  expect(score.lost).toBe(0);
  for (const ack of score.acknowledged)
    expect(stored.get(ack.text) ?? [], ack.text).toEqual([{ streamName: `session-${ack.sessionId}`, revision: ack.revision }]);
  for (const text of score.refused) expect(stored.has(text), text).toBe(false);
  for (const text of score.unavailable) expect((stored.get(text) ?? []).length, text).toBeLessThanOrEqual(1);
  for (const code of score.unavailableCodes) expect(code).toMatch(/^(DATABASE_UNAVAILABLE|EVENT_STORE_UNAVAILABLE)$/);
}
