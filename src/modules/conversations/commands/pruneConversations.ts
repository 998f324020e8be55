// Prune: forget routing entries idle longer than N days (never suspended ones, queued messages or turns in flight); their events stay for audit.
import { Inject } from '@nestjs/common';
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { DataSource } from 'typeorm';
import type { LedgerConfig } from '../../../config/config.js';
import { quoteIdentifier } from '../../../database/migrate.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { CONFIG } from '../../../config/config.js';
import { READ_MODELS } from '../../../projections/readModelDatabase.js';
import { CommandContext } from '../../commandContext.js';
import { conversationStreamName } from '../../../events/conversation/conversationEvents.js';
import { runtimeBindingStreamName } from '../../../events/runtime/runtimeBindingEvents.js';
import { runtimeSessionStreamName } from '../../../events/runtime/runtimeSessionEvents.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import { runtimeBindingDecider } from '../../runtime/domain/runtimeBindingDecider.js';
import { runtimeSessionDecider } from '../../runtime/domain/runtimeSessionDecider.js';
import { sessionDecider } from '../../sessions/domain/sessionDecider.js';
import { conversationDecider } from '../domain/conversationDecider.js';
import { ChangeConversationCommand, type ConversationChangeResult } from './changeConversation.js';
import { NotFoundError } from '../../../errors/ledgerError.js';

export interface PruneConversationsResult {
  maxAgeDays: number;
  /** Absent when nothing was considered (maxAgeDays 0). */
  olderThan?: string;
  /** The keys pruned, a tenant's as `<tenant>~<key>`. */
  pruned: string[];
  position: number;
}

export class PruneConversationsCommand extends Command<PruneConversationsResult> {
  constructor(
    readonly maxAgeDays: number,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

@CommandHandler(PruneConversationsCommand)
export class PruneConversationsHandler implements ICommandHandler<PruneConversationsCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    private readonly commands: CommandBus,
    @Inject(READ_MODELS) private readonly readModels: DataSource,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {}

  async execute({ maxAgeDays, metadata }: PruneConversationsCommand): Promise<PruneConversationsResult> {
    if (maxAgeDays === 0) return { maxAgeDays, pruned: [], position: 0 };
    const olderThan = new Date(this.commandContext.clock.now().getTime() - maxAgeDays * 86_400_000).toISOString();
    const table = `${quoteIdentifier(this.config.readModelSchema)}.conversation_entries`;
    // Every tenant's: prune is an admin operation.
    const candidates: Array<{ tenant: string; session_key: string }> = await this.readModels.query(
      `SELECT tenant, session_key FROM ${table} WHERE updated_at < $1 AND NOT suspended ORDER BY updated_at`,
      [olderThan],
    );
    const pruned: string[] = [];
    let position = 0;
    // The index only nominates; each conversation's own stream decides (it may have been active since).
    for (const { tenant, session_key: sessionKey } of candidates) {
      // A turn in flight is activity the routing entry has not seen yet: leave the conversation for a later prune.
      if (await this.hasTurnInFlight(sessionKey, tenant || undefined)) continue;
      let result: ConversationChangeResult;
      try {
        result = await this.commands.execute(
          new ChangeConversationCommand(sessionKey, { type: 'PruneConversation', olderThan }, { ...metadata, ...(tenant ? { tenant } : {}) }),
        );
      } catch (error) {
        // Forgotten since the index nominated it (another prune, another instance): nothing left to do here.
        if (error instanceof NotFoundError) continue;
        throw error;
      }
      // A tenant's keys are reported as `<tenant>~<key>`, the way its stream names hold them.
      if (result.changed) pruned.push(tenant ? `${tenant}~${sessionKey}` : sessionKey);
      position = Math.max(position, result.position);
    }
    return { maxAgeDays, olderThan, pruned, position };
  }

  /** A ledger turn started and not recorded on the current session, or a runtime turn running on the bound runtime session. */
  private async hasTurnInFlight(sessionKey: string, tenant: string | undefined): Promise<boolean> {
    const { streams } = this.commandContext;
    const conversation = await streams.load(conversationStreamName(sessionKey, tenant), conversationDecider);
    const sessionId = conversation.state.sessionId;
    if (sessionId && (await streams.load(sessionStreamName(sessionId, tenant), sessionDecider)).state.turnInFlight !== null) return true;
    const runtimeSessionId = (await streams.load(runtimeBindingStreamName(sessionKey, tenant), runtimeBindingDecider)).state.runtimeSessionId;
    if (runtimeSessionId === null) return false;
    return (await streams.load(runtimeSessionStreamName(runtimeSessionId, tenant), runtimeSessionDecider)).state.currentTurnId !== null;
  }
}
