// Changes to one session stream: turns, transcript, memory, slots, checkpoints and rollback. A completed turn also clears the conversation's resume mark.
import { Command, type CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { conversationStreamName } from '../../../events/conversation/conversationEvents.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { sessionStreamName, type SessionStreamEvent } from '../../../events/session/sessionEvents.js';
import { eventOfType } from '../../../events/eventOfType.js';
import { type AttemptCommand, commandOfAttempt } from '../../../events/attemptCommand.js';
import { type ConversationCommand, type ConversationState, conversationDecider } from '../../conversations/domain/conversationDecider.js';
import type { DecisionReads, LoadedState } from '../../../events/streamStateStore.js';
import { LedgerMetrics } from '../../../metrics/ledgerMetrics.js';
import type { Request } from '../../../http/httpTypes.js';
import { CommandContext, requestMetadata } from '../../commandContext.js';
import { validSessionId } from '../sessionRequests.js';
import { type ExistingSession, existingSession, type SessionCommand, sessionDecider, sessionNotFound, type SessionState } from '../domain/sessionDecider.js';
import type { CreateSession } from '../domain/decide/createSession.js';
import type { DestroySession } from '../domain/decide/destroySession.js';
import type { EndSession, ReopenSession } from '../domain/decide/endSession.js';
import type { RecordChildSession } from '../domain/decide/recordChildSession.js';

/** The session commands a change may ask for: creating, ending, destroying and recording a child have handlers of their own. */
type SessionChangeCommand = Exclude<SessionCommand, CreateSession | RecordChildSession | DestroySession | EndSession | ReopenSession>;

export class ChangeSessionCommand extends Command<SessionChangeResult> {
  constructor(
    readonly sessionId: string,
    /**
     * A command of the session decider, complete but for the time the handler stamps at each attempt, or built from
     * the attempt where it reads more (rollBackCommand replays the state a rollback restores).
     */
    readonly command: AttemptCommand<ExistingSession, SessionChangeCommand>,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

/** A route's command to the session `id` names, on behalf of its request (the token's tenant, the request's metadata). */
export function changeSession(
  commands: CommandBus,
  id: string,
  command: AttemptCommand<ExistingSession, SessionChangeCommand>,
  request: Request,
): Promise<SessionChangeResult> {
  return commands.execute(new ChangeSessionCommand(validSessionId(id), command, requestMetadata(request)));
}

export interface SessionChangeResult {
  state: ExistingSession;
  revision: number;
  position: number;
  decided: SessionStreamEvent[];
}

@CommandHandler(ChangeSessionCommand)
export class ChangeSessionHandler implements ICommandHandler<ChangeSessionCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    private readonly metrics: LedgerMetrics,
  ) {}

  async execute({ sessionId, command, metadata }: ChangeSessionCommand): Promise<SessionChangeResult> {
    const { commandContext } = this;
    const stream = sessionStreamName(sessionId, metadata.tenant);
    let conversation: LoadedState<ConversationState> | undefined;
    // One load serves the checks and the decision. A session still open although its conversation points elsewhere
    // lost its SessionEnded to a crash between two appends: the decision is then to end it (superseded), appended
    // like any other, and the change is decided again on the ended state, which refuses it as any ended session does.
    const decideChange = async (state: SessionState, reads: DecisionReads): Promise<SessionCommand> => {
      if (state.status === 'absent') throw sessionNotFound(sessionId);
      conversation = await this.conversationOf(state, metadata, reads);
      if (conversation && conversation.state.status === 'open' && conversation.state.sessionId !== sessionId) {
        return { type: 'EndSession', reason: 'superseded', now: commandContext.now() };
      }
      return commandOfAttempt(command, { now: commandContext.now(), streamName: stream, state, reads });
    };
    let result = await commandContext.streams.handle(stream, sessionDecider, decideChange, metadata);
    if (eventOfType(result.events, 'SessionEnded')?.data.reason === 'superseded') {
      result = await commandContext.streams.handle(stream, sessionDecider, decideChange, metadata);
    }
    const state = existingSession(result.state, sessionId);
    let position = result.position;
    for (const event of result.events) if (event.type === 'TurnRecorded') this.metrics.countUsage(state.origin.platform, event.data.usage);
    const completedTurn = result.events.some((event) => event.type === 'TurnRecorded' && event.data.status === 'completed');
    // Children and forks are nobody's conversation session: their turns say nothing about a resume mark.
    if (completedTurn && state.parentSessionId === null) {
      // Hermes' rule: a completed turn ends the soft-resume state of its conversation.
      const clear: ConversationCommand = { type: 'ClearResumePending', reason: 'turn_completed', sessionId, now: commandContext.now() };
      // The conversation as this request read it, before the turn's append: with no mark there, a mark now can only
      // come from a request running alongside this one, and either order of the two is an answer they could get.
      // An earlier attempt's answer (a keyed retry) proves nothing of the conversation this attempt read: decide anew.
      if (conversation && !result.earlier && conversationDecider.decide(clear, conversation.state).length === 0) {
        position = Math.max(position, conversation.position);
      } else {
        const cleared = await commandContext.streams.handle(conversationStreamName(state.sessionKey, metadata.tenant), conversationDecider, clear, metadata);
        position = Math.max(position, cleared.position);
      }
    }
    return { state, revision: result.revision, position, decided: result.events };
  }

  /**
   * The conversation of an active conversation session (not a child's or a fork's), read for the checks: from the
   * cache where there is one, its revision then a condition of the change's append (see DecisionReads).
   */
  private async conversationOf(state: ExistingSession, metadata: EventMetadata, reads: DecisionReads): Promise<LoadedState<ConversationState> | undefined> {
    if (state.status !== 'active' || state.parentSessionId !== null) return undefined;
    return reads.load(conversationStreamName(state.sessionKey, metadata.tenant), conversationDecider);
  }
}
