// What a load generator is asked to send, and what it reports back: shared by the orchestrator and the generator process.

/** Which seeded conversations a scenario addresses: a list of indices, or a range it cycles through. */
export type ConversationPick = { indices: number[] } | { from: number; count: number };

export type LoadScenario =
  /** The trivial route, the baseline every HTTP figure is a ratio of. */
  | { kind: 'health' }
  /** Resolve of existing conversations (seeded as `<chatPrefix>-<index>`), cycling through the pick. */
  | { kind: 'resolve'; chatPrefix: string; pick: ConversationPick }
  /** Resolve of conversations nobody has seen: every request creates a conversation and a session. */
  | {
      kind: 'resolve-new';
      chatPrefix: string;
      /** Answer the created sessions' ids (LoadResult.sessionIds), for turns on them next. */ collectSessionIds?: boolean;
    }
  /** A turn recorded on each session in turn; with more sessions than connections, no two requests race on one. */
  | { kind: 'turns'; sessionIds: string[]; /** Each request with a fresh Idempotency-Key, as the typed client sends it. */ keyed?: boolean }
  | { kind: 'transcript'; sessionIds: string[] }
  | { kind: 'rollback'; targets: Array<{ sessionId: string; checkpointId: string }> }
  /** A gateway's message: resolve the conversation, then record a turn on the session it answered with. */
  | { kind: 'message'; chatPrefix: string; pick: ConversationPick };

export interface LoadSpec {
  url: string;
  connections: number;
  /** Seconds to run; ignored when `amount` is set. */
  durationSeconds?: number;
  /** Exactly this many requests (e.g. one per conversation of a pick). */
  amount?: number;
  scenario: LoadScenario;
}

export interface LoadResult {
  requests: number;
  durationSeconds: number;
  requestsPerSecond: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** The service process's CPU time per request during the run, in ms, where the orchestrator measured it. */
  cpuMsPerRequest?: number;
  /** The session ids a `resolve-new` scenario with `collectSessionIds` was answered, in the order the answers came. */
  sessionIds?: string[];
}
