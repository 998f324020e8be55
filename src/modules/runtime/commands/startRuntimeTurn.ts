// A turn for a conversation's runtime: keep or replace the binding (sticky, /new <task>, drift), then start the turn on that runtime session.
import { Command, CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { conversationStreamName } from '../../../events/conversation/conversationEvents.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import type { BindReason } from '../../../events/runtime/runtimeBindingEvents.js';
import { runtimeBindingStreamName } from '../../../events/runtime/runtimeBindingEvents.js';
import { runtimeSessionStreamName } from '../../../events/runtime/runtimeSessionEvents.js';
import { conversationDecider, conversationNotFound, type OpenConversation } from '../../conversations/domain/conversationDecider.js';
import { ChangeSessionCommand } from '../../sessions/commands/changeSession.js';
import { CommandContext } from '../../commandContext.js';
import { type RuntimeBindingCommand, runtimeBindingDecider } from '../domain/runtimeBindingDecider.js';
import { runtimeSessionDecider, type RuntimeStatus } from '../domain/runtimeSessionDecider.js';
import { newRuntimeSessionId } from '../runtimeSessionId.js';
import { type BindingStatus, bindingStatus } from '../runtimeViews.js';

/** sticky: an ordinary turn (POST …/runtime/turns); task: `/new <task>`, always a new runtime session. */
export type TurnBinding =
  { type: 'sticky'; provider: string; model: string; newSession: boolean } | { type: 'task'; provider: string | null; model: string | null };

export class StartRuntimeTurnCommand extends Command<RuntimeTurnResult> {
  constructor(
    readonly sessionKey: string,
    readonly binding: TurnBinding,
    readonly input: string,
    readonly metadata: EventMetadata,
  ) {
    super();
  }
}

export interface RuntimeTurnResult {
  sessionKey: string;
  runtimeSessionId: string;
  turnId: string;
  provider: string;
  model: string;
  /** Whether this turn started a new runtime session, and why (`reused` when it did not). */
  newSession: boolean;
  reason: BindReason | 'reused';
  previousRuntimeSessionId: string | null;
  /** The drift status note, when the binding changed because of drift. */
  note: string | null;
  /** The runtime session's folded state came from this process's cache (warm), the store (resumed), or was created (cold). */
  state: 'warm' | 'resumed' | 'cold';
  bindingState: BindingStatus;
  runtimeState: RuntimeStatus;
  position: number;
}

export async function requireConversation(commandContext: CommandContext, sessionKey: string, tenant: string | undefined): Promise<OpenConversation> {
  const conversation = await commandContext.streams.load(conversationStreamName(sessionKey, tenant), conversationDecider);
  if (conversation.state.status !== 'open') throw conversationNotFound();
  return conversation.state;
}

@CommandHandler(StartRuntimeTurnCommand)
export class StartRuntimeTurnHandler implements ICommandHandler<StartRuntimeTurnCommand> {
  constructor(
    private readonly commandContext: CommandContext,
    private readonly commands: CommandBus,
  ) {}

  async execute({ sessionKey, binding, input, metadata }: StartRuntimeTurnCommand): Promise<RuntimeTurnResult> {
    const { commandContext } = this;
    const conversation = await requireConversation(commandContext, sessionKey, metadata.tenant);
    const now = commandContext.now();
    const candidateId = newRuntimeSessionId();
    const bindCommand: RuntimeBindingCommand =
      binding.type === 'sticky'
        ? { type: 'BindForTurn', provider: binding.provider, model: binding.model, newSession: binding.newSession, runtimeSessionId: candidateId, now }
        : { type: 'BindForTask', provider: binding.provider, model: binding.model, runtimeSessionId: candidateId, now };
    // The binding first: its append is the compare-and-set between racing turns. A crash before the runtime
    // stream is written leaves a binding to a stream that does not exist yet; the next turn creates it.
    const bound = await commandContext.streams.handle(runtimeBindingStreamName(sessionKey, metadata.tenant), runtimeBindingDecider, bindCommand, metadata);
    const rebound = bound.events.find((event) => event.type === 'RuntimeBound');
    const { runtimeSessionId, provider, model } = bound.state as { runtimeSessionId: string; provider: string; model: string };
    const turn = await commandContext.streams.handle(
      runtimeSessionStreamName(runtimeSessionId, metadata.tenant),
      runtimeSessionDecider,
      { type: 'StartTurn', runtimeSessionId, sessionKey, provider, model, input, now },
      metadata,
    );
    const started = turn.events.find((event) => event.type === 'TurnStarted')!;
    let position = Math.max(bound.position, turn.position);
    if (rebound?.type === 'RuntimeBound' && rebound.data.reason === 'drift' && rebound.data.note && conversation.sessionId) {
      // A status note: the chat transcript says why the agent's runtime thread changed.
      const noted = await this.commands.execute(
        new ChangeSessionCommand(conversation.sessionId, { type: 'NoteStatus', text: rebound.data.note, reason: 'runtime_drift' }, metadata),
      );
      position = Math.max(position, noted.position);
    }
    return {
      sessionKey,
      runtimeSessionId,
      turnId: started.type === 'TurnStarted' ? started.data.turnId : turn.state.currentTurnId!,
      provider,
      model,
      newSession: rebound !== undefined,
      reason: rebound?.type === 'RuntimeBound' ? rebound.data.reason : 'reused',
      previousRuntimeSessionId: rebound?.type === 'RuntimeBound' ? rebound.data.previousRuntimeSessionId : null,
      note: rebound?.type === 'RuntimeBound' ? rebound.data.note : null,
      state: turn.source,
      bindingState: bindingStatus(bound.state, turn.state.status),
      runtimeState: turn.state.status,
      position,
    };
  }
}
