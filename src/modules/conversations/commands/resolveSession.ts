// Resolve: get or create the session a message belongs to, race-free across requests and instances.
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { conversationStreamName } from '../../../events/conversation/conversationEvents.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import { CommandContext } from '../../commandContext.js';
import { type SessionKeyOptions, sessionKeyFor } from '../../sessions/domain/sessionKey.js';
import { earlierSessionKeysFor } from '../../sessions/domain/sessionKeyAliases.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';
import { sessionDecider } from '../../sessions/sessionDecider.js';
import { type ConversationState, conversationDecider } from '../conversationDecider.js';
import { conversationEntry, type ConversationEntry } from '../conversationEntry.js';
import { followSessionBinding } from '../sessionBinding.js';

export interface ResolveOptions {
  groupSessionsPerUser?: boolean;
  threadSessionsPerUser?: boolean;
  agent?: string;
}

export class ResolveSessionCommand extends Command<ResolveSessionResult> {
  constructor(
    readonly source: SessionSource,
    readonly options: ResolveOptions,
    readonly forceNew: boolean,
    readonly gatewayId: string,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface ResolveSessionResult {
  sessionKey: string;
  sessionId: string;
  /** cold: created now; resumed: rehydrated from the store, or a resume-pending conversation; warm: served from memory. */
  state: 'cold' | 'resumed' | 'warm';
  created: boolean;
  entry: ConversationEntry;
  position: number;
}

@CommandHandler(ResolveSessionCommand)
export class ResolveSessionHandler implements ICommandHandler<ResolveSessionCommand> {
  constructor(private readonly commandContext: CommandContext) {}

  async execute(command: ResolveSessionCommand): Promise<ResolveSessionResult> {
    const { commandContext } = this;
    const settings = commandContext.settings;
    const isolation = {
      groupSessionsPerUser: command.options.groupSessionsPerUser ?? settings.groupSessionsPerUser,
      threadSessionsPerUser: command.options.threadSessionsPerUser ?? settings.threadSessionsPerUser,
    };
    const sessionKey = await this.sessionKeyOf(
      command.source,
      { agent: command.options.agent ?? settings.agent, ...isolation, whatsappAliases: settings.whatsappAliases, escapeIds: settings.escapeKeyIds },
      command.metadata.tenant,
    );
    const result = await commandContext.streams.handle(
      conversationStreamName(sessionKey, command.metadata.tenant),
      conversationDecider,
      async (state) => ({
        type: 'ResolveSession' as const,
        sessionKey,
        source: command.source,
        gatewayId: command.gatewayId,
        forceNew: command.forceNew,
        isolation,
        newSessionId: commandContext.newSessionId(),
        currentSessionHadActivity: await this.hadActivity(state, command.forceNew, command.metadata.tenant),
        freshnessSeconds: settings.resumeFreshnessSeconds,
        touchIntervalSeconds: settings.touchIntervalSeconds,
        now: commandContext.now(),
      }),
      command.metadata,
    );
    let position = Math.max(result.position, await followSessionBinding(commandContext, sessionKey, result.events, command.metadata));
    const conversation = result.state;
    const sessionStream = sessionStreamName(conversation.sessionId!, command.metadata.tenant);
    let session = await commandContext.streams.load(sessionStream, sessionDecider);
    if (session.source === 'empty') {
      // The winner of a race, or a process that crashed, has bound this session without writing its stream yet.
      const created = await commandContext.streams.handle(
        sessionStream,
        sessionDecider,
        {
          type: 'CreateSession',
          sessionId: conversation.sessionId!,
          sessionKey,
          origin: conversation.origin!,
          reason: conversation.bindReason ?? 'new',
          now: conversation.createdAt!,
        },
        command.metadata,
      );
      session = created;
      position = Math.max(position, created.position);
    }
    const created = result.events.some((event) => event.type === 'SessionBound');
    return {
      sessionKey,
      sessionId: conversation.sessionId!,
      state: created ? 'cold' : conversation.resumePending || result.source !== 'warm' ? 'resumed' : 'warm',
      created,
      entry: conversationEntry(conversation, session.state),
      position,
    };
  }

  /**
   * The source's key, unless its conversation already lives under the key an earlier setting or version gave it
   * (SESSION_KEY_ESCAPE_IDS flipped, keys from before Hermes parity): that one is an alias, never a second
   * conversation. Only a key with no conversation yet looks further, and most sources have no other form at all.
   */
  private async sessionKeyOf(source: SessionSource, options: SessionKeyOptions, tenant: string | undefined): Promise<string> {
    const sessionKey = sessionKeyFor(source, options);
    const earlier = earlierSessionKeysFor(source, options);
    if (earlier.length === 0) return sessionKey;
    const current = await this.commandContext.streams.load(conversationStreamName(sessionKey, tenant), conversationDecider);
    if (current.state.status !== 'absent') return sessionKey;
    for (const key of earlier) {
      const existing = await this.commandContext.streams.load(conversationStreamName(key, tenant), conversationDecider);
      if (existing.state.status === 'open') return key;
    }
    return sessionKey;
  }

  /** Only a decision that may replace the session needs to know whether the current one was used. */
  private async hadActivity(state: ConversationState, forceNew: boolean, tenant: string | undefined): Promise<boolean> {
    if (state.status !== 'open' || !state.sessionId) return false;
    if (!forceNew && !state.suspended && !state.resumePending) return false;
    const session = await this.commandContext.streams.load(sessionStreamName(state.sessionId, tenant), sessionDecider);
    return session.state.turnCount > 0;
  }
}
