// Erase: a person's messages and ids leave the log, the snapshots, the caches and the read models; the lifecycle skeleton stays for audit.
import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { LedgerError } from '../../../errors/ledgerError.js';
import type { StateCache } from '../../../events/boundedStateCache.js';
import type { EventMetadata, EventStore } from '../../../events/eventStore.js';
import type { PostgresEventRedaction, RedactionScope, StoredEvent } from '../../../events/postgres/eventRedaction.js';
import type { SnapshotStore } from '../../../events/snapshotStore.js';
import type { SqlClient } from '../../../database/sqlPool.js';
import { IdempotencyStore } from '../../../idempotency/idempotencyStore.js';
import { CONFIG, type LedgerConfig } from '../../../config/config.js';
import type { ErasureCrashStep } from '../../../config/erasureCrashSteps.js';
import { EVENT_STORE } from '../../../events/eventStore.js';
import { LOGGER } from '../../../logging/logger.js';
import { PROJECTIONS } from '../../../projections/projectionRunner.js';
import { STATE_CACHE } from '../../../events/boundedStateCache.js';
import type { Logger } from '../../../logging/logger.js';
import type { ProjectionRunner } from '../../../projections/projectionRunner.js';
import { conversationNotFound } from '../../conversations/domain/conversationDecider.js';
import { jobDecider } from '../../jobs/domain/jobDecider.js';
import { CommandContext } from '../../commandContext.js';
import { sessionDecider } from '../../sessions/domain/sessionDecider.js';
import { type ErasureContext, newErasureContext, resumedErasureContext } from '../domain/erasureContext.js';
import {
  anchorStreams,
  homeChannelHolders,
  inErasedTenant,
  personalChatIds,
  personalRequests,
  planErasure,
  referencedStreams,
  renamedAnchorStreams,
  type StreamRole,
} from '../domain/personalStreams.js';
import { ERASURE_SNAPSHOTS, EVENT_REDACTION } from '../erasureTokens.js';
import { completionEventId, erasedKeyDigest, type JournaledErasure, journaledErasures } from '../erasureRecord.js';
import {
  ERASURE_LOG_STREAM,
  type ErasureResultData,
  type PersonalDataErasedData,
  type PersonalDataErasureCompletedData,
} from '../../../events/erasure/erasureLogEvents.js';

export class EraseConversationCommand extends Command<EraseConversationResult> {
  constructor(
    readonly sessionKey: string,
    readonly tenant: string | undefined,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface EraseConversationResult extends Omit<ErasureResultData, 'tenant'> {
  tenant: string | null;
  /** Rows of idempotency_keys deleted: stored answers of the person's keyed requests, and such requests still running. */
  storedAnswersRemoved: number;
  /** Position of the erasure's last write: read with ?minPosition= to wait for the rebuilt read models. */
  position: number;
}

// A write that raced the first rewrite (a session bound just before it, created just after) is caught by another pass.
const MAX_SETTLE_PASSES = 3;

interface Taken {
  /** Every stream rewritten: name before the erasure → after (the same for all but the two streams named after the key). */
  names: Map<string, string>;
  roles: Map<string, StreamRole>;
  /** Position of each stream's first event: children were created after their parents. */
  firstPositions: Map<string, number>;
  /**
   * The person's chat ids by platform, found in their sources by the first pass (which then erases them), so that the
   * later passes still know a home channel naming one. Kept in memory only, never recorded.
   */
  chatIds: Map<string, Set<string>>;
  /**
   * What finds the person's stored answers of keyed requests (idempotency_keys): the keys' tags that the events the
   * erasure took in carry, and the person's ids (the key, their session, runtime-session and job ids). Memory only.
   */
  requests: { keyTags: Set<string>; ids: Set<string> };
}

interface Totals {
  eventsRead: number;
  eventsRewritten: number;
  streamsRenamed: number;
  storedAnswersRemoved: number;
}

const newTaken = (): Taken => ({
  names: new Map(),
  roles: new Map(),
  firstPositions: new Map(),
  chatIds: new Map(),
  requests: { keyTags: new Set(), ids: new Set() },
});

/**
 * An erasure is two steps. The destructive one (rewrite and rename) commits in one transaction together with its
 * PersonalDataErased record. The rest (sessions and jobs closed, caches and snapshots dropped, read models rebuilt)
 * ends with PersonalDataErasureCompleted holding the answer. A record without its completion is an erasure a
 * crash cut short: it is finished at the next start, and by a retry of the request, which then answers the result.
 */
@CommandHandler(EraseConversationCommand)
export class EraseConversationHandler implements ICommandHandler<EraseConversationCommand> {
  // One finish per erasure in this process, whoever asks for it (the request, its retry, the start-up resumption).
  private readonly finishing = new Map<string, Promise<EraseConversationResult>>();

  constructor(
    private readonly commandContext: CommandContext,
    @Inject(EVENT_REDACTION) private readonly redaction: PostgresEventRedaction | null,
    @Inject(ERASURE_SNAPSHOTS) private readonly snapshots: SnapshotStore,
    @Inject(STATE_CACHE) private readonly cache: StateCache,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(PROJECTIONS) private readonly projections: ProjectionRunner,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly idempotencyKeys: IdempotencyStore,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {}

  /** Test-only (ERASURE_TEST_CRASH_AT): dies here, as kill -9 would, when the crash tests ask for this step. */
  private crashPoint(step: ErasureCrashStep): void {
    if (this.config.erasureTestCrashAt === step) process.kill(process.pid, 'SIGKILL');
  }

  async execute({ sessionKey, tenant, metadata }: EraseConversationCommand): Promise<EraseConversationResult> {
    const redaction = this.requireRedaction();
    const keyDigest = erasedKeyDigest(sessionKey, tenant);
    const context = newErasureContext(sessionKey, tenant);
    const taken = newTaken();
    let storedAnswersRemoved = 0;
    // The person's stored answers go with the rewrite, in its transaction where their table shares its database (one pool).
    const answersAlongside = this.idempotencyKeys.options.claimsWithAppends
      ? async (client: SqlClient) => {
          storedAnswersRemoved = await this.forgetAnswers(context, taken, client);
        }
      : undefined;
    const first = await redaction.rewrite(
      this.scope(context, taken, { scan: true }),
      (outcome) => ({
        streamName: ERASURE_LOG_STREAM,
        id: randomUUID(),
        type: 'PersonalDataErased',
        data: {
          erasureId: context.erasureId,
          tenant: tenant ?? null,
          streams: outcome.streams,
          eventsRead: outcome.eventsRead,
          eventsRewritten: outcome.eventsRewritten,
          streamsRenamed: outcome.streamsRenamed,
          at: this.commandContext.now(),
          pseudonymousKey: context.pseudonymousKey,
          keyDigest,
        } satisfies PersonalDataErasedData,
        metadata: { ...metadata, schemaVersion: 1 },
      }),
      answersAlongside,
    );
    if (!first.found) return this.earlierErasure(keyDigest, metadata);
    this.crashPoint('recorded');
    // In another database: right after the rewrite (a crash in between leaves them to the resumed erasure's pass).
    if (!answersAlongside) storedAnswersRemoved = await this.forgetAnswers(context, taken);
    // From here on the erasure finishes even if this process dies: the next start, or a retry, picks it up.
    this.logger.info({ erasureId: context.erasureId, tenant, streams: first.streams.length }, 'erasure recorded; closing sessions and rebuilding read models');
    const totals = { eventsRead: first.eventsRead, eventsRewritten: first.eventsRewritten, streamsRenamed: first.streamsRenamed, storedAnswersRemoved };
    return this.finishOnce(context.erasureId, () => this.finish(context, taken, totals, first.streams, first.journalPosition ?? 0, metadata));
  }

  /** Finishes every erasure the log shows begun and never completed (a crash cut it short); answers how many. */
  async resumeUnfinished(): Promise<number> {
    if (!this.redaction) return 0;
    const unfinished = (await journaledErasures(this.eventStore)).filter((erasure) => !erasure.completed);
    for (const erasure of unfinished)
      await this.resume(erasure, { actor: 'erasure-resumption', ...(erasure.record.tenant ? { tenant: erasure.record.tenant } : {}) });
    return unfinished.length;
  }

  /** The key is gone from the log: it was never there, or an erasure took it, whose result (finishing it first) is the answer. */
  private async earlierErasure(keyDigest: string, metadata: EventMetadata): Promise<EraseConversationResult> {
    const earlier = (await journaledErasures(this.eventStore)).filter((erasure) => erasure.record.keyDigest === keyDigest).at(-1);
    if (!earlier) throw conversationNotFound();
    if (earlier.completed) return { storedAnswersRemoved: 0, ...earlier.completed };
    return this.resume(earlier, metadata);
  }

  private resume(erasure: JournaledErasure, metadata: EventMetadata): Promise<EraseConversationResult> {
    const { record } = erasure;
    return this.finishOnce(record.erasureId, async () => {
      this.logger.warn({ erasureId: record.erasureId, tenant: record.tenant }, 'resuming an erasure that was cut short');
      const context = resumedErasureContext(record);
      const taken = newTaken();
      // Its rewrite committed: the streams carry their new names, and this pass takes them in and catches late writes.
      const settle = await this.requireRedaction().rewrite(this.scope(context, taken, { scan: false, anchors: record.streams }));
      const totals = {
        eventsRead: record.eventsRead,
        eventsRewritten: record.eventsRewritten + settle.eventsRewritten,
        streamsRenamed: record.streamsRenamed + settle.streamsRenamed,
        // Those the cut-short erasure removed are not recorded: this counts what the finish removes.
        storedAnswersRemoved: 0,
      };
      return this.finish(context, taken, totals, record.streams, erasure.position, metadata, { resumed: true });
    });
  }

  private finishOnce(erasureId: string, work: () => Promise<EraseConversationResult>): Promise<EraseConversationResult> {
    const running = this.finishing.get(erasureId);
    if (running) return running;
    const finished = work().finally(() => this.finishing.delete(erasureId));
    this.finishing.set(erasureId, finished);
    return finished;
  }

  private async finish(
    context: ErasureContext,
    taken: Taken,
    totals: Totals,
    firstStreams: string[],
    recordedAt: number,
    metadata: EventMetadata,
    { resumed }: { resumed: boolean } = { resumed: false },
  ): Promise<EraseConversationResult> {
    const redaction = this.requireRedaction();
    await this.forget(taken);
    const { position: closedAt, ...closed } = await this.close(taken, metadata, resumed);
    this.crashPoint('closed');
    for (let pass = 0; pass < MAX_SETTLE_PASSES; pass++) {
      const settle = await redaction.rewrite(this.scope(context, taken, { scan: false }));
      totals.eventsRewritten += settle.eventsRewritten;
      totals.streamsRenamed += settle.streamsRenamed;
      if (settle.eventsRewritten === 0 && settle.streamsRenamed === 0) break;
    }
    await this.forget(taken);
    this.crashPoint('settled');

    // The read models were built from the events as they were: every one is emptied and replayed from the rewritten log.
    // All at once, and nothing but the last forget after: on PGlite every later query waits behind the replays' batches.
    const projectionsRebuilt = this.projections.projectionNames;
    await Promise.all(projectionsRebuilt.map((name) => this.projections.rebuild(name)));
    this.crashPoint('rebuilt');
    // Anything a request in flight cached or snapshotted from the old events while this ran.
    await this.forget(taken);
    // Answers recorded while this ran by keyed requests of the person's (a turn in flight during the rewrite), and on a
    // resumed erasure all of them: again, harmlessly, what the first step removed.
    totals.storedAnswersRemoved += await this.forgetAnswers(context, taken);

    const result: EraseConversationResult = {
      erasureId: context.erasureId,
      tenant: context.tenant ?? null,
      streams: [...new Set([...firstStreams, ...taken.names.values()])].sort(),
      ...totals,
      ...closed,
      projectionsRebuilt,
      // The last write before the completion: the record, or a session or job closed after it.
      position: Math.max(recordedAt, closedAt),
    };
    const completion: PersonalDataErasureCompletedData = {
      erasureId: context.erasureId,
      tenant: context.tenant ?? null,
      result,
      at: this.commandContext.now(),
    };
    await this.eventStore.append(
      ERASURE_LOG_STREAM,
      [{ id: completionEventId(context.erasureId), type: 'PersonalDataErasureCompleted', data: completion, metadata: { ...metadata, schemaVersion: 1 } }],
      'any',
    );
    this.crashPoint('completed');
    this.logger.info({ erasureId: context.erasureId, tenant: context.tenant, streams: result.streams.length, ...totals, ...closed }, 'personal data erased');
    return result;
  }

  /** Deletes the stored answers of the person's keyed requests (see Taken.requests); answers how many. */
  private forgetAnswers(context: ErasureContext, taken: Taken, client?: SqlClient): Promise<number> {
    const { keyTags, ids } = taken.requests;
    const chatIds = [...taken.chatIds.values()].flatMap((known) => [...known]);
    return this.idempotencyKeys.forgetErased(context.tenant ?? '', { keyTags: [...keyTags], values: [...ids, ...chatIds] }, client);
  }

  private requireRedaction(): PostgresEventRedaction {
    if (!this.redaction) {
      throw new LedgerError('ERASURE_NOT_SUPPORTED', 'erasure rewrites stored events, which EventStoreDB cannot do in place; see docs/erasure.md', 501);
    }
    return this.redaction;
  }

  private scope(context: ErasureContext, taken: Taken, { scan, anchors = [] }: { scan: boolean; anchors?: readonly string[] }): RedactionScope {
    return {
      // A later pass starts from where the first one left the streams: never from the old names, which by then
      // may hold a new conversation of the same person, begun after the erasure.
      anchors: scan ? anchorStreams(context) : [...new Set([...renamedAnchorStreams(context), ...anchors, ...taken.names.values()])],
      mentioning: scan ? context.sessionKey : undefined,
      acceptMention: (name) => inErasedTenant(name, context),
      referencedBy: (streams) => referencedStreams(streams, context),
      // The gateways whose home channel is the person's chat, found by the first pass's scan; later passes take them
      // in as streams it rewrote.
      holding: (streams) => {
        for (const [platform, ids] of personalChatIds(streams, context)) {
          const known = taken.chatIds.get(platform) ?? new Set<string>();
          for (const id of ids) known.add(id);
          taken.chatIds.set(platform, known);
        }
        return homeChannelHolders(scan ? taken.chatIds : new Map(), context);
      },
      plan: (streams) => {
        const plan = planErasure(streams, { ...context, personalChatIds: taken.chatIds });
        const requests = personalRequests(streams, plan, context);
        for (const tag of requests.keyTags) taken.requests.keyTags.add(tag);
        for (const id of requests.ids) taken.requests.ids.add(id);
        for (const [name, role] of plan.roles) {
          taken.names.set(name, plan.renames.get(name) ?? name);
          taken.roles.set(plan.renames.get(name) ?? name, role);
          taken.firstPositions.set(plan.renames.get(name) ?? name, firstPosition(streams.get(name)!));
        }
        return plan;
      },
    };
  }

  /** Drops every stream rewritten, under both names, from the snapshot store and this instance's cache. Other instances follow the erasure log. */
  private async forget(taken: Taken): Promise<void> {
    const names = [...new Set([...taken.names.keys(), ...taken.names.values()])];
    for (const name of names) this.cache.invalidate(name);
    await Promise.all(names.map((name) => this.snapshots.delete(name)));
  }

  /**
   * The person's sessions are destroyed and their jobs removed, through the deciders like any other request: a
   * gateway still holding an erased session id is refused instead of writing new content under the skeleton.
   */
  private async close(taken: Taken, metadata: EventMetadata, resumed: boolean): Promise<{ sessionsDestroyed: number; jobsRemoved: number; position: number }> {
    const now = this.commandContext.now();
    const byRole = (role: StreamRole) =>
      [...taken.roles]
        .filter(([, streamRole]) => streamRole === role)
        .map(([name]) => name)
        // Newest first: children before their parents, as a cascade destroys them.
        .sort((a, b) => taken.firstPositions.get(b)! - taken.firstPositions.get(a)!);
    let sessionsDestroyed = 0;
    let position = 0;
    for (const name of byRole('session')) {
      const written = await this.refusalsSkipped(name, () =>
        this.commandContext.streams.handle(name, sessionDecider, { type: 'DestroySession', reason: 'destroyed', now }, metadata),
      );
      // A resumed pass counts what the pass cut short already closed: its answer is the whole erasure's.
      if (written?.written || (resumed && written?.state.status === 'destroyed')) sessionsDestroyed += 1;
      position = Math.max(position, written?.position ?? 0);
    }
    let jobsRemoved = 0;
    for (const name of byRole('job')) {
      const job = await this.commandContext.streams.load(name, jobDecider);
      if (job.state.status === 'removed' && resumed) jobsRemoved += 1;
      if (job.state.status === 'absent' || job.state.status === 'removed') continue;
      const written = await this.refusalsSkipped(name, () => this.commandContext.streams.handle(name, jobDecider, { type: 'RemoveJob', now }, metadata));
      if (written?.written) jobsRemoved += 1;
      position = Math.max(position, written?.position ?? 0);
    }
    return { sessionsDestroyed, jobsRemoved, position };
  }

  /** A decider's refusal (a 4xx) leaves that one stream as it is; the erasure goes on. The database being away does not. */
  private async refusalsSkipped<Result>(streamName: string, work: () => Promise<Result>): Promise<Result | undefined> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof LedgerError) || error.status >= 500) throw error;
      this.logger.warn({ streamName, code: error.code }, 'erasure could not close a stream; its events are erased all the same');
      return undefined;
    }
  }
}

function firstPosition(events: readonly StoredEvent[]): number {
  return events[0]?.position ?? 0;
}
