// Destroy: the session ends for good (its events stay for audit); with cascade, its live subtree first, deepest first.
import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { DataSource } from 'typeorm';
import type { LedgerConfig } from '../../../config/config.js';
import { ConflictError, UnavailableError } from '../../../errors/ledgerError.js';
import { conversationStreamName } from '../../../events/conversation/conversationEvents.js';
import type { EventMetadata, EventStore } from '../../../events/eventStore.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import { CONFIG } from '../../../config/config.js';
import { EVENT_STORE } from '../../../events/eventStore.js';
import { PROJECTIONS } from '../../../projections/projectionRunner.js';
import { READ_MODELS } from '../../../projections/readModelDatabase.js';
import type { ProjectionRunner } from '../../../projections/projectionRunner.js';
import { sessionTreeProjection } from '../../../projections/sessionTree/sessionTreeProjection.js';
import { conversationDecider } from '../../conversations/domain/conversationDecider.js';
import { CommandContext } from '../../commandContext.js';
import { type ExistingSession, sessionDecider, sessionNotFound } from '../domain/sessionDecider.js';
import { findTreeNode, liveDescendants } from '../tree/sessionTreeQueries.js';

export class DestroySessionCommand extends Command<DestroySessionResult> {
  constructor(
    readonly sessionId: string,
    readonly cascade: boolean,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface DestroySessionResult {
  sessionId: string;
  /** Sessions this request destroyed, the subtree's first; empty when the session was destroyed already. */
  destroyed: string[];
  position: number;
}

@CommandHandler(DestroySessionCommand)
export class DestroySessionHandler implements ICommandHandler<DestroySessionCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
    @Inject(PROJECTIONS) private readonly projections: ProjectionRunner,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {}

  async execute({ sessionId, cascade, metadata }: DestroySessionCommand): Promise<DestroySessionResult> {
    const { streams } = this.commandContext;
    const loaded = await streams.load(sessionStreamName(sessionId, metadata.tenant), sessionDecider);
    if (loaded.state.status === 'absent') throw sessionNotFound(sessionId);
    if (loaded.state.status === 'destroyed') return { sessionId, destroyed: [], position: loaded.position };
    await this.refuseIfConversationCurrent(sessionId, loaded.state, metadata.tenant);

    const subtree = cascade ? await this.liveSubtree(sessionId, metadata.tenant) : [];
    const destroyed: string[] = [];
    let position = 0;
    const now = this.commandContext.now();
    // Deepest first, the session itself last: a cascade cut short leaves it alive, so repeating it finishes the job.
    for (const descendant of subtree) {
      const result = await streams.handle(
        sessionStreamName(descendant, metadata.tenant),
        sessionDecider,
        { type: 'DestroySession', reason: 'cascade', cascadeFrom: sessionId, now },
        metadata,
      );
      if (result.written) destroyed.push(descendant);
      position = Math.max(position, result.position);
    }
    const own = await streams.handle(
      sessionStreamName(sessionId, metadata.tenant),
      sessionDecider,
      { type: 'DestroySession', reason: 'destroyed', now },
      metadata,
    );
    if (own.written) destroyed.push(sessionId);
    return { sessionId, destroyed, position: Math.max(position, own.position) };
  }

  /** A conversation's current session is refused: the gateway would keep resolving messages to a dead session. */
  private async refuseIfConversationCurrent(sessionId: string, state: ExistingSession, tenant: string | undefined): Promise<void> {
    if (state.parentSessionId !== null) return;
    const conversation = await this.commandContext.streams.load(conversationStreamName(state.sessionKey, tenant), conversationDecider);
    if (conversation.state.status === 'open' && conversation.state.sessionId === sessionId) {
      throw new ConflictError('SESSION_IN_USE', `session ${sessionId} is the current session of ${state.sessionKey}; reset or switch the conversation first`, {
        sessionId,
        sessionKey: state.sessionKey,
      });
    }
  }

  /** The tree read model must have seen every child created before this request: wait for it (bounded). */
  private async liveSubtree(sessionId: string, tenant: string | undefined): Promise<string[]> {
    const head = await this.eventStore.lastCommittedPosition();
    if (!(await this.projections.waitForPosition([sessionTreeProjection.name], head, this.config.readWaitTimeoutMs))) {
      throw new UnavailableError(
        'PROJECTION_NOT_CAUGHT_UP',
        `the session tree has not reached position ${head} within ${this.config.readWaitTimeoutMs} ms; retry`,
        {
          minPosition: head,
          projections: [sessionTreeProjection.name],
        },
      );
    }
    const node = await findTreeNode(this.readModels, sessionId, tenant);
    return node ? liveDescendants(this.readModels, node) : [];
  }
}
