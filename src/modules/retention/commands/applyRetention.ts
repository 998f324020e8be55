// Apply the retention policy: old transcript content erased in place through the erasure's redaction, checkpoints
// beyond the newest K expired, each application journaled on retention-log; or, as a dry run, only reported.
import { randomBytes, randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type RetentionPolicy, contentDaysFor } from '../../../config/retentionSettings.js';
import { LedgerError } from '../../../errors/ledgerError.js';
import { STATE_CACHE, type StateCache } from '../../../events/boundedStateCache.js';
import { EVENT_STORE, type EventMetadata, type EventStore } from '../../../events/eventStore.js';
import { eventOfType } from '../../../events/eventOfType.js';
import type { StoredEvent } from '../../../events/postgres/eventRedaction.js';
import type { ContentCutoffs } from '../../../events/postgres/retentionCandidates.js';
import {
  RETENTION_LOG_STREAM,
  type RetentionAppliedData,
  type RetentionCompletedData,
  type RetentionResultData,
} from '../../../events/retention/retentionLogEvents.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import { streamScope } from '../../../events/streamScope.js';
import { upcastEvent } from '../../../events/upcasting/upcastingEventStore.js';
import { LOGGER, type Logger } from '../../../logging/logger.js';
import { PROJECTIONS, type ProjectionRunner } from '../../../projections/projectionRunner.js';
import { CommandContext } from '../../commandContext.js';
import { type ContentCutoff, type ContentExpiryPlan, planContentExpiry, type SessionContentExpiry } from '../../erasure/domain/expireContent.js';
import { completionEventId } from '../../erasure/erasureRecord.js';
import { checkpointsBeyond } from '../../sessions/domain/decide/expireCheckpoints.js';
import { sessionDecider } from '../../sessions/domain/sessionDecider.js';
import { journaledRetentions } from '../retentionRecord.js';
import { RETENTION_TABLES, type RetentionTables } from '../retentionTables.js';

export class ApplyRetentionCommand extends Command<RetentionReport> {
  constructor(
    readonly policy: RetentionPolicy,
    readonly dryRun: boolean,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface RetentionReport {
  /** The application's id on retention-log and in the rewritten events' metadata; null for a dry run. */
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
    /** `sessions` lists the first LISTED_SESSIONS only; the totals count every one. */
    truncated: boolean;
  };
  checkpoints: {
    sessions: Array<{ sessionId: string; tenant: string | null; checkpointIds: string[] }>;
    /** Sessions whose checkpoints expired, every one. */
    checkpointSessions: number;
    checkpointsExpired: number;
    /** `sessions` lists the first LISTED_SESSIONS only; the totals count every one. */
    truncated: boolean;
  };
  /** Read models whose rows of the expired sessions were built again because they held expired content (the transcript search). */
  projectionsRepaired: string[];
  /** Position of the application's last write (0: nothing written): read with ?minPosition= to see its effect. */
  position: number;
}

/** The read model that copies transcript content: its rows of the expired sessions are refolded from the rewritten log. */
const CONTENT_PROJECTIONS = ['transcript-search'];
/** Sessions per rewrite transaction: each holds its streams' append locks only that long. */
const SESSIONS_PER_REWRITE = 50;
const DAY_MS = 86_400_000;
/** Sessions an answer lists, of each kind: the totals count every one, so a policy's first run over a large log answers in bounded size. */
export const LISTED_SESSIONS = 1_000;

function chunks<Item>(items: readonly Item[], size: number): Item[][] {
  const out: Item[][] = [];
  for (let at = 0; at < items.length; at += size) out.push(items.slice(at, at + size));
  return out;
}

/** The session's id and tenant, from its stream name. */
function sessionOf(streamName: string): { sessionId: string; tenant: string | null } {
  const { tenant, name } = streamScope(streamName);
  return { sessionId: name.slice(sessionStreamName('').length), tenant: tenant === '' ? null : tenant };
}

function platformOf(events: readonly StoredEvent[]): string | null {
  const first = events[0];
  if (!first || first.type !== 'SessionCreated') return null;
  const origin = upcastEvent({ id: '', ...first }).data.origin as { platform?: unknown } | undefined;
  return typeof origin?.platform === 'string' ? origin.platform : '';
}

@CommandHandler(ApplyRetentionCommand)
export class ApplyRetentionHandler implements ICommandHandler<ApplyRetentionCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    @Inject(RETENTION_TABLES) private readonly tables: RetentionTables | null,
    @Inject(STATE_CACHE) private readonly cache: StateCache,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(PROJECTIONS) private readonly projections: ProjectionRunner,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute({ policy, dryRun, metadata }: ApplyRetentionCommand): Promise<RetentionReport> {
    const tables = this.requireTables();
    const now = this.commandContext.clock.now();
    const at = now.toISOString();
    const retentionId = `retention_${randomBytes(8).toString('hex')}`;
    const cutoffAfter = (days: number | null) => (days === null ? null : new Date(now.getTime() - days * DAY_MS).toISOString());
    const cutoffs: ContentCutoffs = {
      byPlatform: new Map([...policy.contentDaysByPlatform].map(([platform, days]) => [platform, cutoffAfter(days)])),
      otherwise: cutoffAfter(policy.contentDays),
    };
    // Decided again from each stream's own events under its lock: the candidates query is only where to look.
    const cutoffOf = (_streamName: string, events: readonly StoredEvent[]): ContentCutoff | null => {
      const platform = platformOf(events);
      if (platform === null) return null;
      const cutoff = cutoffAfter(contentDaysFor(policy, platform));
      return cutoff === null ? null : { platform, cutoff };
    };

    const hasContentPolicy = cutoffs.otherwise !== null || [...cutoffs.byPlatform.values()].some((cutoff) => cutoff !== null);
    const candidates = hasContentPolicy ? await tables.candidates.sessionsWithOldContent(cutoffs) : [];
    const expired: SessionContentExpiry[] = [];
    let position = 0;
    let part = 0;
    for (const batch of chunks(
      candidates.map((candidate) => candidate.streamName),
      SESSIONS_PER_REWRITE,
    )) {
      if (dryRun) {
        expired.push(...planContentExpiry(await tables.candidates.readStreams(batch), cutoffOf, retentionId).sessions);
        continue;
      }
      let planned: ContentExpiryPlan | undefined;
      const outcome = await tables.redaction.rewrite(
        { anchors: batch, referencedBy: () => [], plan: (streams) => (planned = planContentExpiry(streams, cutoffOf, retentionId)) },
        // Committed with the rewrite, or not at all: nothing left to expire (another instance was first) records nothing.
        () => {
          if (!planned || planned.sessions.length === 0) return undefined;
          part += 1;
          const data: RetentionAppliedData = {
            retentionId,
            part,
            sessions: planned.sessions,
            eventsRewritten: planned.events.length,
            at,
          };
          return { streamName: RETENTION_LOG_STREAM, id: randomUUID(), type: 'RetentionApplied', data, metadata: { ...metadata, schemaVersion: 1 } };
        },
      );
      if (planned && planned.sessions.length > 0) {
        expired.push(...planned.sessions);
        position = Math.max(position, outcome.journalPosition ?? 0);
      }
    }

    const checkpointSessions: RetentionReport['checkpoints']['sessions'] = [];
    let checkpointSessionCount = 0;
    let checkpointsExpired = 0;
    if (policy.keepCheckpoints !== null) {
      const keep = policy.keepCheckpoints;
      for (const streamName of await tables.candidates.sessionsWithCheckpointsBeyond(keep)) {
        let checkpointIds: string[];
        if (dryRun) {
          const { state } = await this.commandContext.streams.load(streamName, sessionDecider);
          checkpointIds = state.status === 'destroyed' ? [] : checkpointsBeyond(state, keep);
        } else {
          // Through the decider at the stream's revision: of two instances expiring at once, one writes and the other finds nothing left.
          const written = await this.refusalsSkipped(streamName, () =>
            this.commandContext.streams.handle(streamName, sessionDecider, { type: 'ExpireCheckpoints', keep, retentionId, now: at }, metadata),
          );
          checkpointIds = (written && eventOfType(written.events, 'CheckpointsExpired')?.data.checkpointIds) || [];
          if (written?.written) position = Math.max(position, written.position);
        }
        if (checkpointIds.length === 0) continue;
        checkpointSessionCount += 1;
        checkpointsExpired += checkpointIds.length;
        if (checkpointSessions.length < LISTED_SESSIONS) checkpointSessions.push({ ...sessionOf(streamName), checkpointIds });
      }
    }

    const report: RetentionReport = {
      retentionId: dryRun ? null : retentionId,
      dryRun,
      at,
      policy: {
        contentDays: policy.contentDays,
        contentDaysByPlatform: Object.fromEntries(policy.contentDaysByPlatform),
        keepCheckpoints: policy.keepCheckpoints,
      },
      content: {
        sessions: expired.slice(0, LISTED_SESSIONS).map((session) => ({
          ...sessionOf(session.streamName),
          platform: session.platform,
          cutoff: session.cutoff,
          eventsRewritten: session.eventsRewritten,
          messagesExpired: session.messagesExpired,
          itemsExpired: session.itemsExpired,
        })),
        ...contentTotals(expired),
        truncated: expired.length > LISTED_SESSIONS,
      },
      checkpoints: {
        sessions: checkpointSessions,
        checkpointSessions: checkpointSessionCount,
        checkpointsExpired,
        truncated: checkpointSessionCount > LISTED_SESSIONS,
      },
      projectionsRepaired: [],
      position,
    };
    if (dryRun || (expired.length === 0 && checkpointSessionCount === 0)) return report;
    if (expired.length > 0) report.projectionsRepaired = await this.forgetExpired(expired.map((session) => session.streamName));
    report.position = Math.max(report.position, await this.complete(retentionId, resultOf(report), metadata));
    this.logger.info(resultOf(report), 'retention applied');
    return report;
  }

  /** Finishes every application whose content rewrite committed and whose completion a crash cut off; answers how many. */
  async resumeUnfinished(): Promise<number> {
    if (!this.tables) return 0;
    const unfinished = (await journaledRetentions(this.eventStore)).filter((retention) => !retention.completed && retention.parts.length > 0);
    for (const retention of unfinished) {
      this.logger.warn({ retentionId: retention.retentionId }, 'finishing a retention application that was cut short');
      const sessions = retention.parts.flatMap((part) => part.sessions);
      const projectionsRepaired = await this.forgetExpired(sessions.map((session) => session.streamName));
      // The checkpoints it expired are in their sessions' own events; the completion counts what the log journals.
      await this.complete(
        retention.retentionId,
        { retentionId: retention.retentionId, ...contentTotals(sessions), checkpointsExpired: 0, checkpointSessions: 0, projectionsRepaired },
        { actor: 'retention-resumption' },
      );
    }
    return unfinished.length;
  }

  /**
   * The rewritten sessions leave this instance's cache and the snapshots (a snapshot checks only the position of its
   * last event, which a rewrite does not move); other instances follow retention-log. The search rows of those
   * sessions alone are built again from their rewritten events: the rest of the index, and its checkpoint, stay.
   */
  private async forgetExpired(streamNames: readonly string[]): Promise<string[]> {
    const forget = async () => {
      for (const name of streamNames) this.cache.invalidate(name);
      await Promise.all(streamNames.map((name) => this.tables!.snapshots.delete(name)));
    };
    await forget();
    const repaired = CONTENT_PROJECTIONS.filter((name) => this.projections.projectionNames.includes(name));
    for (const name of repaired) await this.projections.refold(name, streamNames, SESSIONS_PER_REWRITE);
    // Anything a request in flight cached or snapshotted from the old events meanwhile.
    await forget();
    return repaired;
  }

  /** RetentionCompleted, its event id fixed by the application: two instances finishing one record it once. */
  private async complete(retentionId: string, result: RetentionResultData, metadata: EventMetadata): Promise<number> {
    const data: RetentionCompletedData = { retentionId, result, at: this.commandContext.now() };
    const appended = await this.eventStore.append(
      RETENTION_LOG_STREAM,
      [{ id: completionEventId(retentionId), type: 'RetentionCompleted', data, metadata: { ...metadata, schemaVersion: 1 } }],
      'any',
    );
    return appended.position;
  }

  private requireTables(): RetentionTables {
    if (!this.tables) {
      throw new LedgerError(
        'ERASURE_NOT_SUPPORTED',
        'retention erases expired content in place through the erasure path, which EventStoreDB cannot do; see docs/retention.md',
        501,
      );
    }
    return this.tables;
  }

  /** A decider's refusal (a 4xx) leaves that one session as it is; the application goes on. The database being away does not. */
  private async refusalsSkipped<Result>(streamName: string, work: () => Promise<Result>): Promise<Result | undefined> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof LedgerError) || error.status >= 500) throw error;
      this.logger.warn({ streamName, code: error.code }, 'retention could not expire checkpoints of a session');
      return undefined;
    }
  }
}

function contentTotals(sessions: ReadonlyArray<Pick<SessionContentExpiry, 'eventsRewritten' | 'messagesExpired' | 'itemsExpired'>>) {
  return {
    sessionsExpired: sessions.length,
    eventsRewritten: sessions.reduce((sum, session) => sum + session.eventsRewritten, 0),
    messagesExpired: sessions.reduce((sum, session) => sum + session.messagesExpired, 0),
    itemsExpired: sessions.reduce((sum, session) => sum + session.itemsExpired, 0),
  };
}

function resultOf(report: RetentionReport): RetentionResultData {
  return {
    retentionId: report.retentionId!,
    sessionsExpired: report.content.sessionsExpired,
    eventsRewritten: report.content.eventsRewritten,
    messagesExpired: report.content.messagesExpired,
    itemsExpired: report.content.itemsExpired,
    checkpointsExpired: report.checkpoints.checkpointsExpired,
    checkpointSessions: report.checkpoints.checkpointSessions,
    projectionsRepaired: report.projectionsRepaired,
  };
}
