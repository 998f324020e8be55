// Reset, switch, suspend and resume marks on one conversation: decide on its stream, then follow on the session streams.
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { type AttemptCommand, commandOfAttempt } from '../../../events/attemptCommand.js';
import { type ConversationEvent, conversationStreamName } from '../../../events/conversation/conversationEvents.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import { CommandContext } from '../../commandContext.js';
import {
  type ConversationRuntimeEnd,
  type ConversationRuntimeEndResult,
  EndConversationRuntimeCommand,
} from '../../runtime/commands/endConversationRuntime.js';
import { sessionDecider } from '../../sessions/domain/sessionDecider.js';
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

/**
 * Reset and suspend end the conversation's runtime binding before their own append, with the reason the runtime
 * records and what to do with a runtime turn in flight; 'keep' leaves the binding (answered as detaching nothing).
 */
export type RuntimeEnding = 'keep' | { reason: ConversationRuntimeEnd; turnInFlight: 'refuse' | 'interrupt' | 'ignore' };

export class ChangeConversationCommand extends Command<ConversationChangeResult> {
  constructor(
    readonly sessionKey: string,
    /**
     * A command of the conversation decider, complete but for the time the handler stamps at each attempt, or built
     * from the attempt where it reads another stream or needs a new id (resetConversationCommand, switchSessionCommand).
     */
    readonly command: AttemptCommand<OpenConversation, ConversationCommand>,
    readonly metadata: EventMetadata,
    readonly runtime?: RuntimeEnding,
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

  async execute({ sessionKey, command, metadata, runtime: ending }: ChangeConversationCommand): Promise<ConversationChangeResult> {
    const { commandContext } = this;
    // The runtime binding ends first: a crash between the two leaves a conversation that was asked for a new thread
    // without one, which the next runtime turn binds anyway, never a new session still on the old thread.
    const runtime = await this.endRuntime(sessionKey, ending, metadata);
    let previousSessionId: string | null = null;
    let decidedOn: ConversationState | undefined;
    const streamName = conversationStreamName(sessionKey, metadata.tenant);
    const result = await commandContext.streams.handleOpening(
      streamName,
      conversationDecider,
      (state, reads) => {
        if (state.status === 'absent') throw conversationNotFound();
        previousSessionId = state.sessionId;
        decidedOn = state;
        return commandOfAttempt(command, { now: commandContext.now(), streamName, state, reads });
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

  /** The runtime binding's end a reset or suspend asks for first; other changes leave it alone. */
  private async endRuntime(sessionKey: string, ending: RuntimeEnding | undefined, metadata: EventMetadata): Promise<ConversationRuntimeEndResult | undefined> {
    if (ending === undefined) return undefined;
    if (ending === 'keep') return { detachedRuntimeSessionId: null, interruptedTurnId: null, position: 0 };
    // Nothing is written for a conversation that is not there: the conversation's own decision answers 404 below.
    const conversation = await this.commandContext.streams.load(conversationStreamName(sessionKey, metadata.tenant), conversationDecider);
    if (conversation.state.status !== 'open') throw conversationNotFound();
    return this.commands.execute(new EndConversationRuntimeCommand(sessionKey, ending.reason, ending.turnInFlight, metadata));
  }
}
