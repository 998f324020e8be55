// The retention log's events: what each application of the retention policy expired, and when (docs/retention.md).

/** One stream for every application of the policy: the service's own, in no tenant (a policy covers every tenant). */
export const RETENTION_LOG_STREAM = 'retention-log';

/** One session whose old transcript content an application expired. A type, not an interface, so it is a JsonObject. */
export type ExpiredSessionContent = {
  /** The session's stream (it names the tenant, if any). */
  streamName: string;
  platform: string;
  /** Content older than this was expired. */
  cutoff: string;
  /** Events rewritten, and messages and items among them whose content became "[erased]" or {}. */
  eventsRewritten: number;
  messagesExpired: number;
  itemsExpired: number;
};

/**
 * Transcript content older than the policy's cutoffs was erased in place, in the same transaction as this record: every
 * event keeps its type, revision, position, time, roles, counters and ids; the content of messages and items goes.
 * One record per batch of sessions; `part` counts them within one application.
 */
export type RetentionAppliedData = {
  retentionId: string;
  part: number;
  sessions: ExpiredSessionContent[];
  eventsRewritten: number;
  at: string;
};

/** What an application did as a whole, written once its caches, snapshots and search index no longer hold what expired. */
export type RetentionResultData = {
  retentionId: string;
  /** Sessions whose content expired, and the events rewritten in them. */
  sessionsExpired: number;
  eventsRewritten: number;
  messagesExpired: number;
  itemsExpired: number;
  /** Checkpoints expired, over how many sessions (each session's own CheckpointsExpired event names them). */
  checkpointsExpired: number;
  checkpointSessions: number;
  projectionsRepaired: string[];
};

export type RetentionCompletedData = { retentionId: string; result: RetentionResultData; at: string };

export type RetentionLogEvent = { type: 'RetentionApplied'; data: RetentionAppliedData } | { type: 'RetentionCompleted'; data: RetentionCompletedData };

export type RetentionLogEventType = RetentionLogEvent['type'];
