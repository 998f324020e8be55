// Reset, switch, suspend and resume marks on one conversation: decide on its stream, then follow on the session streams.
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  type AutoContinuation,
  type ConversationEvent,
  conversationStreamName,
  type QueuedMessage,
  type ResumeReason,
} from '../../../events/conversation/conversationEvents.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import { CommandContext } from '../../commandContext.js';
import { type ConversationRuntimeEndResult, EndConversationRuntimeCommand } from '../../runtime/commands/endConversationRuntime.js';
import { sessionDecider, sessionDestroyed } from '../../sessions/domain/sessionDecider.js';
import {
  type ConversationCommand,
  conversationDecider,
  conversationNotFound,
  type ConversationState,
  type OpenConversation,
} from '../domain/conversationDecider.js';
import { conversationEntry, type ConversationEntry } from '../conversationEntry.js';
import { followSessionBinding } from '../sessionBinding.js';
import { sessionsOpenedBy } from '../sessionFollowUps.js';

export type ConversationChange =
  /** keepRuntime: leave the runtime binding; force: interrupt a runtime turn in flight instead of refusing (409 RUNTIME_BUSY). */
  | { type: 'reset'; keepRuntime?: boolean; force?: boolean; displayName?: string | undefined }
  | { type: 'switch'; sessionId: string }
  | { type: 'suspend'; reason: string; keepRuntime?: boolean }
  | { type: 'markResumePending'; reason: ResumeReason }
  | { type: 'clearResumePending'; reason?: 'manual' | 'drained' }
  | { type: 'countRestartInterruption'; bootId: string; stuckThreshold: number }
  | { type: 'enqueue'; message: QueuedMessage }
  | { type: 'dequeue' }
  | { type: 'queueContinuation'; continuation: AutoContinuation }
  | { type: 'prune'; olderThan: string };

export class ChangeConversationCommand extends Command<ConversationChangeResult> {
  constructor(
    readonly sessionKey: string,
    readonly change: ConversationChange,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface ConversationChangeResult {
  sessionKey: string;
  sessionId: string | null;
  previousSessionId: string | null;
  changed: boolean;
  entry: ConversationEntry | null;
  position: number;
  state: ConversationState;
  /** The state the decision was taken on (the last attempt's, after any conflict retries). */
  decidedOn: ConversationState;
  decided: ConversationEvent[];
  /** Reset and suspend: the runtime session they unbound (null when none was bound, or keepRuntime). */
  detachedRuntimeSessionId?: string | null;
  /** A forced reset: the runtime turn it interrupted. */
  interruptedTurnId?: string | null;
}

@CommandHandler(ChangeConversationCommand)
export class ChangeConversationHandler implements ICommandHandler<ChangeConversationCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    private readonly commands: CommandBus,
  ) {}

  async execute({ sessionKey, change, metadata }: ChangeConversationCommand): Promise<ConversationChangeResult> {
    const { commandContext } = this;
    // The runtime binding ends first: a crash between the two leaves a conversation that was asked for a new thread
    // without one, which the next runtime turn binds anyway, never a new session still on the old thread.
    const runtime = await this.endRuntime(sessionKey, change, metadata);
    let previousSessionId: string | null = null;
    let decidedOn: ConversationState | undefined;
    const result = await commandContext.streams.handleOpening(
      conversationStreamName(sessionKey, metadata.tenant),
      conversationDecider,
      async (state) => {
        if (state.status === 'absent') throw conversationNotFound();
        previousSessionId = state.sessionId;
        decidedOn = state;
        return this.toCommand(change, state, metadata.tenant);
      },
      metadata,
      sessionsOpenedBy(sessionKey, metadata.tenant),
    );
    const opened = new Set(result.opened.map((stream) => stream.streamName));
    const position = Math.max(result.position, runtime?.position ?? 0, await followSessionBinding(commandContext, sessionKey, result.events, metadata, opened));
    // A pruned conversation has no current session any more; a new one is as the conversation's append opened it.
    const sessionStream = result.state.sessionId ? sessionStreamName(result.state.sessionId, metadata.tenant) : undefined;
    const session = sessionStream
      ? (result.opened.find((stream) => stream.streamName === sessionStream) ?? (await commandContext.streams.load(sessionStream, sessionDecider)))
      : undefined;
    return {
      sessionKey,
      sessionId: result.state.sessionId,
      previousSessionId,
      changed: result.written,
      entry: result.state.status === 'open' && result.state.sessionId !== null ? conversationEntry(result.state, session?.state) : null,
      position,
      state: result.state,
      decidedOn: decidedOn ?? result.state,
      decided: result.events,
      ...(runtime ? { detachedRuntimeSessionId: runtime.detachedRuntimeSessionId, interruptedTurnId: runtime.interruptedTurnId } : {}),
    };
  }

  /** Reset and suspend end the conversation's runtime binding unless asked to keep it; other changes leave it alone. */
  private async endRuntime(sessionKey: string, change: ConversationChange, metadata: EventMetadata): Promise<ConversationRuntimeEndResult | undefined> {
    if (change.type !== 'reset' && change.type !== 'suspend') return undefined;
    if (change.keepRuntime) return { detachedRuntimeSessionId: null, interruptedTurnId: null, position: 0 };
    // Nothing is written for a conversation that is not there: the conversation's own decision answers 404 below.
    const conversation = await this.commandContext.streams.load(conversationStreamName(sessionKey, metadata.tenant), conversationDecider);
    if (conversation.state.status !== 'open') throw conversationNotFound();
    const turnInFlight = change.type === 'suspend' ? 'ignore' : change.force ? 'interrupt' : 'refuse';
    const reason = change.type === 'reset' ? 'conversation_reset' : 'conversation_suspended';
    return this.commands.execute(new EndConversationRuntimeCommand(sessionKey, reason, turnInFlight, metadata));
  }

  private async toCommand(change: ConversationChange, state: OpenConversation, tenant: string | undefined): Promise<ConversationCommand> {
    const now = this.commandContext.now();
    switch (change.type) {
      case 'reset': {
        const current = state.sessionId === null ? null : await this.commandContext.streams.load(sessionStreamName(state.sessionId, tenant), sessionDecider);
        const currentSessionHadActivity = current !== null && current.state.turnCount > 0;
        return {
          type: 'ResetConversation',
          newSessionId: this.commandContext.newSessionId(),
          currentSessionHadActivity,
          now,
          ...(change.displayName === undefined ? {} : { displayName: change.displayName }),
        };
      }
      case 'switch': {
        // A destroyed session keeps its history for audit but never comes back to life.
        const target = await this.commandContext.streams.load(sessionStreamName(change.sessionId, tenant), sessionDecider);
        if (target.state.status === 'destroyed') throw sessionDestroyed(change.sessionId);
        return { type: 'SwitchSession', sessionId: change.sessionId, now };
      }
      case 'suspend':
        return { type: 'SuspendConversation', reason: change.reason, now };
      case 'markResumePending':
        return { type: 'MarkResumePending', reason: change.reason, now };
      case 'clearResumePending':
        return { type: 'ClearResumePending', reason: change.reason ?? 'manual', now };
      case 'countRestartInterruption':
        return { type: 'CountRestartInterruption', bootId: change.bootId, stuckThreshold: change.stuckThreshold, now };
      case 'enqueue':
        return {
          type: 'EnqueueMessage',
          message: change.message,
          cap: this.commandContext.queueSettings.cap,
          followUps: this.commandContext.queueSettings.followUps,
          now,
        };
      case 'dequeue':
        return { type: 'DequeueMessage', now };
      case 'queueContinuation':
        // Named after the boot, so the same boot's retry names the same message.
        return { type: 'QueueContinuation', messageId: `auto-continue:${change.continuation.bootId}`, continuation: change.continuation, now };
      case 'prune':
        return { type: 'PruneConversation', olderThan: change.olderThan, now };
      default: {
        const unknown: never = change;
        return unknown;
      }
    }
  }
}
