// POST /v1/sessions/resolve: get or create the session a message belongs to (Hermes' get_or_create_session), race-free
// across requests and instances. The route and its one handler, with no command bus between them: nothing else resolves.
import { Controller, Injectable, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { z } from 'zod';
import type { Request, Response } from '../../http/httpTypes.js';
import { DocumentedBody, ValidBody } from '../../http/zodValidation.js';
import { ClaimWithFirstAppend } from '../../idempotency/claimWithFirstAppend.js';
import type { ResetPolicy } from '../../events/conversation/resetPolicy.js';
import { endRuntimeAfterPolicyReset } from './commands/expireConversation.js';
import { effectiveResetPolicy } from './resetPolicy/effectiveResetPolicy.js';
import { policyResetMayBeDue, type SessionWork } from './resetPolicy/policyExpiry.js';
import { autoResetNotice } from './resetPolicy/resetNotice.js';
import { loadSessionWork } from './sessionWork.js';
import { type ConversationEvent, conversationStreamName } from '../../events/conversation/conversationEvents.js';
import type { EventMetadata } from '../../events/eventStore.js';
import { sessionStreamName } from '../../events/session/sessionEvents.js';
import { CommandContext, requestMetadata } from '../commandContext.js';
import { resolveRequestSchema } from './conversationRequests.js';
import { type SessionKeyOptions, sessionKeyFor } from '../sessions/domain/sessionKey.js';
import { earlierSessionKeysFor } from '../sessions/domain/sessionKeyAliases.js';
import type { SessionSource } from '../../events/conversation/sessionSource.js';
import { sessionDecider } from '../sessions/domain/sessionDecider.js';
import type { SessionState } from '../sessions/domain/sessionState.js';
import type { DecisionReads, LoadedState } from '../../events/streamStateStore.js';
import { automaticBindReasons } from '../../events/conversation/routingEntryRules.js';
import { boundConversation, type ConversationState, conversationDecider } from './domain/conversationDecider.js';
import { conversationEntry, type ConversationEntry } from './conversationEntry.js';
import { followSessionBinding } from './sessionBinding.js';
import { sessionsOpenedBy } from './sessionFollowUps.js';

export interface ResolveOptions {
  groupSessionsPerUser?: boolean;
  threadSessionsPerUser?: boolean;
  agent?: string;
  /** The conversation's own reset policy, stored with it; null drops it; absent keeps what is stored. */
  resetPolicy?: ResetPolicy | null;
}

/** What the gateway reports besides the message. */
export interface ResolveActivity {
  /** Start of its oldest live background process for this conversation; null: none. */
  backgroundProcessSince: string | null;
}

export class ResolveSessionCommand {
  constructor(
    readonly source: SessionSource,
    readonly options: ResolveOptions,
    readonly forceNew: boolean,
    readonly gatewayId: string,
    readonly metadata: EventMetadata,
    readonly activity?: ResolveActivity,
  ) {}
}

export interface ResolveSessionResult {
  sessionKey: string;
  sessionId: string;
  /** cold: created now; resumed: rehydrated from the store, or a resume-pending conversation; warm: served from memory. */
  state: 'cold' | 'resumed' | 'warm';
  created: boolean;
  /** This resolve replaced the session automatically (Hermes' was_auto_reset): idle, daily, suspended, resume_expired. */
  wasAutoReset: boolean;
  autoResetReason: string | null;
  /** The replaced session had turns (Hermes' reset_had_activity). */
  resetHadActivity: boolean;
  /** After an idle or daily reset, when the policy notifies on this platform: text the gateway can send the user. */
  notice: string | null;
  entry: ConversationEntry;
  position: number;
}

@Injectable()
export class ResolveSessionHandler {
  constructor(
    private readonly commandContext: CommandContext,
    private readonly commands: CommandBus,
  ) {}

  async resolve(command: ResolveSessionCommand): Promise<ResolveSessionResult> {
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
    const conversationStream = conversationStreamName(sessionKey, command.metadata.tenant);
    const { current, speculatedSession } = await this.catchUpCached(conversationStream, command.metadata.tenant);
    const result = await commandContext.streams.handleOpening(
      conversationStream,
      conversationDecider,
      async (state, reads) => {
        const now = commandContext.now();
        const sessionWork = await this.sessionWorkIfResetMayBeDue(state, reads, sessionKey, command, now);
        return {
          type: 'ResolveSession' as const,
          sessionKey,
          source: command.source,
          gatewayId: command.gatewayId,
          forceNew: command.forceNew,
          isolation,
          newSessionId: commandContext.newSessionId(),
          currentSessionHadActivity: sessionWork?.hadActivity ?? (await this.hadActivity(state, command.forceNew, command.metadata.tenant)),
          ...(command.options.resetPolicy === undefined ? {} : { resetPolicy: command.options.resetPolicy }),
          ...(command.activity === undefined ? {} : { backgroundProcessSince: command.activity.backgroundProcessSince }),
          resetRules: settings.reset,
          sessionWork,
          freshnessSeconds: settings.resumeFreshnessSeconds,
          touchIntervalSeconds: settings.touchIntervalSeconds,
          now,
        };
      },
      command.metadata,
      sessionsOpenedBy(sessionKey, command.metadata.tenant),
      current,
    );
    const opened = new Set(result.opened.map((stream) => stream.streamName));
    const followed = await followSessionBinding(commandContext, sessionKey, result.events, command.metadata, opened);
    let position = Math.max(result.position, followed);
    const conversation = boundConversation(result.state);
    const sessionStream = sessionStreamName(conversation.sessionId, command.metadata.tenant);
    // The session as the conversation's append opened it, or as read with the conversation when the binding stayed
    // and the decision stood on that read (a conflict that reloaded the conversation makes the session read stale).
    const decidedOnRead = current !== undefined && result.revision - result.events.length === current.revision;
    let session =
      result.opened.find((stream) => stream.streamName === sessionStream) ??
      (followed === 0 && decidedOnRead && speculatedSession?.streamName === sessionStream ? speculatedSession.loaded : undefined) ??
      (await commandContext.streams.load(sessionStream, sessionDecider));
    if (session.revision < 0) {
      // The winner of a race, or a process that crashed, has bound this session without writing its stream yet.
      const created = await commandContext.streams.handle(
        sessionStream,
        sessionDecider,
        {
          type: 'CreateSession',
          sessionId: conversation.sessionId,
          sessionKey,
          origin: conversation.origin,
          reason: conversation.bindReason ?? 'new',
          now: conversation.createdAt,
        },
        command.metadata,
      );
      session = created;
      position = Math.max(position, created.position);
    }
    const bound = result.events.find((event) => event.type === 'SessionBound');
    const reason = bound?.type === 'SessionBound' ? bound.data.reason : null;
    const wasAutoReset = reason !== null && automaticBindReasons.includes(reason);
    const resetHadActivity = bound?.type === 'SessionBound' && wasAutoReset ? bound.data.previousHadActivity : false;
    let notice: string | null = null;
    if (reason === 'idle' || reason === 'daily') {
      position = Math.max(position, await endRuntimeAfterPolicyReset(this.commands, sessionKey, command.metadata));
      const policy = effectiveResetPolicy(settings.reset, conversation.origin, conversation.resetPolicy);
      notice = autoResetNotice(reason, policy, conversation.origin.platform, resetHadActivity, settings.reset.timeZone);
    }
    return {
      sessionKey,
      sessionId: conversation.sessionId,
      state: bound ? 'cold' : conversation.resumePending || result.source !== 'warm' ? 'resumed' : 'warm',
      created: bound !== undefined,
      wasAutoReset,
      autoResetReason: wasAutoReset ? reason : null,
      resetHadActivity,
      notice,
      entry: { ...conversationEntry(conversation, session.state), isFreshReset: consumedFreshReset(result.events) },
      position,
    };
  }

  /**
   * A conversation in the cache and the session it was bound to, caught up in one read (a warm resolve's only one):
   * the binding rarely changes, and when it has the session is read again after the decision.
   */
  private async catchUpCached(
    conversationStream: string,
    tenant: string | undefined,
  ): Promise<{ current?: LoadedState<ConversationState>; speculatedSession?: { streamName: string; loaded: LoadedState<SessionState> } }> {
    const cachedSessionId = this.commandContext.streams.cachedState(conversationStream, conversationDecider)?.sessionId;
    if (!cachedSessionId) return {};
    const sessionStream = sessionStreamName(cachedSessionId, tenant);
    const [current, session] = await this.commandContext.streams.loadMany([
      { streamName: conversationStream, decider: conversationDecider },
      { streamName: sessionStream, decider: sessionDecider },
    ] as const);
    return { current, speculatedSession: { streamName: sessionStream, loaded: session } };
  }

  /**
   * The conversation's own time is a lower bound of its last activity, so when it shows no reset due none is: the
   * warm path reads nothing more. Otherwise the decision needs the session's last turn and work in progress.
   */
  private async sessionWorkIfResetMayBeDue(
    state: ConversationState,
    reads: DecisionReads,
    sessionKey: string,
    command: ResolveSessionCommand,
    now: string,
  ): Promise<SessionWork | null> {
    if (state.status !== 'open' || command.forceNew || state.suspended || state.expired || state.sessionId === null) return null;
    const rules = this.commandContext.settings.reset;
    const own = command.options.resetPolicy !== undefined ? command.options.resetPolicy : state.resetPolicy;
    if (!policyResetMayBeDue(effectiveResetPolicy(rules, state.origin, own), state.updatedAt, now, rules.timeZone)) return null;
    return loadSessionWork(reads, sessionKey, state.sessionId, command.metadata.tenant);
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
    if (state.status !== 'open' || state.sessionId === null) return false;
    if (!forceNew && !state.suspended && !state.resumePending) return false;
    const session = await this.commandContext.streams.load(sessionStreamName(state.sessionId, tenant), sessionDecider);
    return session.state.turnCount > 0;
  }
}

/**
 * Hermes' gateway reads `is_fresh_reset` from the entry of the first message after a /reset and consumes it there
 * (session:start, skills injected again). Here the resolve that consumes it answers it: its append carries the mark,
 * so under a race only the resolve whose append won sees it, and an Idempotency-Key retry replays that answer.
 */
function consumedFreshReset(events: readonly ConversationEvent[]): boolean {
  return events.some((event) => event.type === 'ConversationTouched' && event.data.freshResetConsumed === true);
}

@ApiTags('conversations')
@Controller('v1')
export class ResolveSessionController {
  constructor(private readonly handler: ResolveSessionHandler) {}

  @Post('sessions/resolve')
  @ClaimWithFirstAppend()
  @ApiResponse({ status: 201, description: 'a session was created' })
  @ApiResponse({ status: 200, description: "the conversation's current session" })
  @ApiOperation({ summary: 'Get or create the session a message belongs to (201 when created, 200 otherwise)' })
  @DocumentedBody(resolveRequestSchema, undefined, { source: { platform: 'telegram', chatType: 'dm', chatId: '12345', userId: '12345', userName: 'Alice' } })
  async resolve(
    @ValidBody(resolveRequestSchema) body: z.infer<typeof resolveRequestSchema>,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ResolveSessionResult> {
    const result = await this.handler.resolve(
      new ResolveSessionCommand(body.source, body.options, body.forceNew, body.gatewayId, requestMetadata(request), body.activity),
    );
    response.status(result.created ? 201 : 200);
    return result;
  }
}
