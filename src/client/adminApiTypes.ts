// The admin API's shapes as the typed client receives them: projections, the stream index, prune and erasure.
// These routes need an admin token when API_TOKENS names tenants.

export interface ParkedStream {
  streamName: string;
  firstPosition: number;
  lastPosition: number;
  skippedEvents: number;
  error: string;
  parkedAt: string;
}

export interface ProjectionStatus {
  name: string;
  position: number;
  headPosition: number;
  /** Events the projection has yet to apply, counted up to 10,000. */
  lagEvents: number;
  /** starting, catching_up, live, failed, standby, stopped, or what its owner stored (e.g. rebuilding). */
  state: string;
  /** Whether this instance runs it (one instance owns each projection). */
  ownedHere: boolean;
  lastError: string | null;
  failedPosition: number | null;
  consecutiveFailures: number;
  failingSince: string | null;
  /** Streams it went on without (oldest first, at most 100): their rows are stale until a rebuild. */
  parkedStreams: ParkedStream[];
  updatedAt: string;
}

export interface ProjectionsResponse {
  projections: ProjectionStatus[];
}

export interface StreamIndexEntry {
  streamName: string;
  /** conversation, session, job, gateway, … */
  category: string;
  revision: number;
  eventCount: number;
  lastPosition: number;
  lastEventType: string;
  firstEventAt: string;
  lastEventAt: string;
}

export interface StreamsQuery {
  category?: string;
  limit?: number;
  /** The previous page's nextCursor. */
  cursor?: number;
}

export interface StreamsPage {
  /** Newest activity first. */
  streams: StreamIndexEntry[];
  nextCursor: number | null;
}

export interface PruneRequest {
  /** Forget routing entries idle longer than this (0 disables); suspended ones stay. */
  maxAgeDays: number;
}

export interface PruneResponse {
  maxAgeDays: number;
  /** The cut-off; absent when maxAgeDays is 0. */
  olderThan?: string;
  /** Session keys forgotten; a tenant's as `<tenant>~<key>`. */
  pruned: string[];
  position: number;
}

export interface EraseRequest {
  sessionKey: string;
  /** The tenant whose conversation it is, when not the default one. */
  tenant?: string;
}

/** POST /v1/admin/retention: any part given replaces the configured RETENTION_* for this application (docs/retention.md). */
export interface RetentionRequest {
  /** Report what would expire and write nothing. */
  dryRun?: boolean;
  /** Days transcript content lives; null: for ever. */
  contentDays?: number | null;
  /** Platform → days (null: for ever), replacing RETENTION_CONTENT_DAYS_BY_PLATFORM. */
  contentDaysByPlatform?: Record<string, number | null>;
  /** Checkpoints each session keeps; null: all. */
  keepCheckpoints?: number | null;
}

export interface RetentionResponse {
  /** On retention-log and in the rewritten events' metadata (contentExpiredBy); null for a dry run. */
  retentionId: string | null;
  dryRun: boolean;
  at: string;
  policy: { contentDays: number | null; contentDaysByPlatform: Record<string, number | null>; keepCheckpoints: number | null };
  content: {
    sessions: Array<{
      sessionId: string;
      tenant: string | null;
      platform: string;
      cutoff: string;
      eventsRewritten: number;
      messagesExpired: number;
      itemsExpired: number;
    }>;
    sessionsExpired: number;
    eventsRewritten: number;
    messagesExpired: number;
    itemsExpired: number;
    /** True when `sessions` lists only the first 1,000 sessions; the totals always count every one. */
    truncated: boolean;
  };
  checkpoints: {
    sessions: Array<{ sessionId: string; tenant: string | null; checkpointIds: string[] }>;
    /** Sessions whose checkpoints expired (or would), every one. */
    checkpointSessions: number;
    checkpointsExpired: number;
    /** True when `sessions` lists only the first 1,000 sessions; the totals always count every one. */
    truncated: boolean;
  };
  /** Read models whose rows of the expired sessions were rebuilt from the rewritten events (the transcript search). */
  projectionsRepaired: string[];
  /** Read with minPosition to see the application's effect everywhere; 0 when nothing was written. */
  position: number;
}

export interface EraseResponse {
  erasureId: string;
  tenant: string | null;
  streams: string[];
  eventsRead: number;
  eventsRewritten: number;
  streamsRenamed: number;
  sessionsDestroyed: number;
  jobsRemoved: number;
  /** Stored answers of the person's keyed requests deleted (rows of idempotency_keys): a retry with such a key runs as a new request. */
  storedAnswersRemoved: number;
  projectionsRebuilt: string[];
  /** Read with minPosition to wait for the rebuilt read models. */
  position: number;
}
