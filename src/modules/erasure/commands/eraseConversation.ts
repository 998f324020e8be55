// Erase: a person's messages and ids leave the log, the snapshots, the caches and the read models; the lifecycle skeleton stays for audit.
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { LedgerError } from '../../../errors/ledgerError.js';
import type { StateCache } from '../../../events/boundedStateCache.js';
import type { EventMetadata, EventStore } from '../../../events/eventStore.js';
import type { PostgresEventRedaction, RedactionScope, StoredEvent } from '../../../events/postgres/eventRedaction.js';
import type { SnapshotStore } from '../../../events/snapshotStore.js';
import { EVENT_STORE, LOGGER, PROJECTIONS, STATE_CACHE } from '../../../http/tokens.js';
import type { Logger } from '../../../logging/logger.js';
import type { ProjectionRunner } from '../../../projections/projectionRunner.js';
import { conversationNotFound } from '../../conversations/conversationDecider.js';
import { jobDecider } from '../../jobs/jobDecider.js';
import { Lifecycle } from '../../lifecycle.js';
import { sessionDecider } from '../../sessions/sessionDecider.js';
import { type ErasureContext, newErasureContext } from '../domain/erasureContext.js';
import { anchorStreams, inErasedTenant, planErasure, referencedStreams, renamedAnchorStreams, type StreamRole } from '../domain/personalStreams.js';
import { ERASURE_SNAPSHOTS, EVENT_REDACTION } from '../erasureProviders.js';
import { ERASURE_LOG_STREAM, type ErasureLogEvent, type PersonalDataErasedData } from '../erasureRecord.js';

export class EraseConversationCommand {
  constructor(
    readonly sessionKey: string,
    readonly tenant: string | undefined,
    readonly metadata: EventMetadata,
  ) {}
}

export interface EraseConversationResult extends Omit<PersonalDataErasedData, 'at' | 'tenant'> {
  tenant: string | null;
  sessionsDestroyed: number;
  jobsRemoved: number;
  projectionsRebuilt: string[];
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
}

@CommandHandler(EraseConversationCommand)
export class EraseConversationHandler implements ICommandHandler<EraseConversationCommand, EraseConversationResult> {
  constructor(
    private readonly lifecycle: Lifecycle,
    @Inject(EVENT_REDACTION) private readonly redaction: PostgresEventRedaction | null,
    @Inject(ERASURE_SNAPSHOTS) private readonly snapshots: SnapshotStore,
    @Inject(STATE_CACHE) private readonly cache: StateCache,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(PROJECTIONS) private readonly projections: ProjectionRunner,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async execute({ sessionKey, tenant, metadata }: EraseConversationCommand): Promise<EraseConversationResult> {
    if (!this.redaction) {
      throw new LedgerError('ERASURE_NOT_SUPPORTED', 'erasure rewrites stored events, which EventStoreDB cannot do in place; see docs/erasure.md', 501);
    }
    const context = newErasureContext(sessionKey, tenant);
    const taken: Taken = { names: new Map(), roles: new Map(), firstPositions: new Map() };
    const first = await this.redaction.rewrite(this.scope(context, taken, { scan: true }));
    if (!first.found) throw conversationNotFound();
    const totals = { eventsRead: first.eventsRead, eventsRewritten: first.eventsRewritten, streamsRenamed: first.streamsRenamed };

    // Recorded at once: should the steps below be cut short, the log still says what was rewritten.
    const record: ErasureLogEvent = {
      type: 'PersonalDataErased',
      data: { erasureId: context.erasureId, tenant: tenant ?? null, streams: first.streams, ...totals, at: this.lifecycle.now() },
    };
    const recorded = await this.eventStore.append(ERASURE_LOG_STREAM, [{ ...record, metadata: { ...metadata, schemaVersion: 1 } }], 'any');

    await this.forget(taken);
    const { position: closedAt, ...closed } = await this.close(taken, metadata);
    for (let pass = 0; pass < MAX_SETTLE_PASSES; pass++) {
      const settle = await this.redaction.rewrite(this.scope(context, taken, { scan: false }));
      totals.eventsRewritten += settle.eventsRewritten;
      totals.streamsRenamed += settle.streamsRenamed;
      if (settle.eventsRewritten === 0 && settle.streamsRenamed === 0) break;
    }
    await this.forget(taken);

    // The read models were built from the events as they were: every one is emptied and replayed from the rewritten log.
    // All at once, and nothing but the last forget after: on PGlite every later query waits behind the replays' batches.
    const projectionsRebuilt = this.projections.projectionNames;
    await Promise.all(projectionsRebuilt.map((name) => this.projections.rebuild(name)));
    // Anything a request in flight cached or snapshotted from the old events while this ran.
    await this.forget(taken);

    this.logger.info({ erasureId: context.erasureId, tenant, streams: first.streams.length, ...totals, ...closed }, 'personal data erased');
    return {
      erasureId: context.erasureId,
      tenant: tenant ?? null,
      streams: [...new Set([...first.streams, ...taken.names.values()])].sort(),
      ...totals,
      ...closed,
      projectionsRebuilt,
      // The last write: the record, or a session or job closed after it.
      position: Math.max(recorded.position, closedAt),
    };
  }

  private scope(context: ErasureContext, taken: Taken, { scan }: { scan: boolean }): RedactionScope {
    return {
      // A later pass starts from where the first one left the streams: never from the old names, which by then
      // may hold a new conversation of the same person, begun after the erasure.
      anchors: scan ? anchorStreams(context) : [...new Set([...renamedAnchorStreams(context), ...taken.names.values()])],
      mentioning: scan ? context.sessionKey : undefined,
      acceptMention: (name) => inErasedTenant(name, context),
      referencedBy: (streams) => referencedStreams(streams, context),
      plan: (streams) => {
        const plan = planErasure(streams, context);
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
    for (const name of names) this.cache.delete(name);
    await Promise.all(names.map((name) => this.snapshots.delete(name)));
  }

  /**
   * The person's sessions are destroyed and their jobs removed, through the deciders like any other request: a
   * gateway still holding an erased session id is refused instead of writing new content under the skeleton.
   */
  private async close(taken: Taken, metadata: EventMetadata): Promise<{ sessionsDestroyed: number; jobsRemoved: number; position: number }> {
    const now = this.lifecycle.now();
    const byRole = (role: StreamRole) =>
      [...taken.roles]
        .filter(([, streamRole]) => streamRole === role)
        .map(([name]) => name)
        // Newest first: children before their parents, as a cascade destroys them.
        .sort((a, b) => taken.firstPositions.get(b)! - taken.firstPositions.get(a)!);
    let sessionsDestroyed = 0;
    let position = 0;
    for (const name of byRole('session')) {
      const written = await this.refusalsSkipped(name, () => this.lifecycle.streams.handle(name, sessionDecider, { type: 'DestroySession', reason: 'destroyed', now }, metadata));
      if (written?.written) sessionsDestroyed += 1;
      position = Math.max(position, written?.position ?? 0);
    }
    let jobsRemoved = 0;
    for (const name of byRole('job')) {
      const job = await this.lifecycle.streams.load(name, jobDecider);
      if (job.state.status === 'absent' || job.state.status === 'removed') continue;
      const written = await this.refusalsSkipped(name, () => this.lifecycle.streams.handle(name, jobDecider, { type: 'RemoveJob', now }, metadata));
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
