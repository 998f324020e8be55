// Turns, rewind and rewrite on one session stream; a completed turn also clears the conversation's resume mark.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { conversationStreamName } from '../../../events/conversation/conversationEvents.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { type MessageInput, sessionStreamName, type TurnStatus, type TurnUsage } from '../../../events/session/sessionEvents.js';
import { conversationDecider } from '../../conversations/conversationDecider.js';
import { Lifecycle } from '../../lifecycle.js';
import { type SessionCommand, sessionDecider, sessionNotFound, type SessionState } from '../sessionDecider.js';

export type SessionChange =
  | { type: 'recordTurn'; messages: MessageInput[]; usage: TurnUsage; status: TurnStatus }
  | { type: 'rewind'; turns: number }
  | { type: 'rewrite'; messages: MessageInput[] };

export class ChangeSessionCommand {
  constructor(
    readonly sessionId: string,
    readonly change: SessionChange,
    readonly metadata: EventMetadata,
  ) {}
}

export interface SessionChangeResult {
  state: SessionState;
  revision: number;
  position: number;
  decided: Array<{ type: string; data: object }>;
}

@CommandHandler(ChangeSessionCommand)
export class ChangeSessionHandler implements ICommandHandler<ChangeSessionCommand, SessionChangeResult> {
  constructor(private readonly lifecycle: Lifecycle) {}

  async execute({ sessionId, change, metadata }: ChangeSessionCommand): Promise<SessionChangeResult> {
    const { lifecycle } = this;
    const stream = sessionStreamName(sessionId);
    const loaded = await lifecycle.streams.load(stream, sessionDecider);
    if (loaded.source === 'empty') throw sessionNotFound(sessionId);
    await this.closeIfSuperseded(sessionId, loaded.state, metadata);

    const result = await lifecycle.streams.handle(stream, sessionDecider, () => this.toCommand(change), metadata);
    let position = result.position;
    const completedTurn = result.events.some((event) => event.type === 'TurnRecorded' && event.data.status === 'completed');
    if (completedTurn) {
      // The seed's rule: a completed turn ends the soft-resume state of its conversation.
      const cleared = await lifecycle.streams.handle(
        conversationStreamName(result.state.sessionKey!),
        conversationDecider,
        { type: 'ClearResumePending', reason: 'turn_completed', sessionId, now: lifecycle.now() },
        metadata,
      );
      position = Math.max(position, cleared.position);
    }
    return { state: result.state, revision: result.revision, position, decided: result.events };
  }

  /**
   * A session still open although its conversation points elsewhere lost its SessionEnded to a crash
   * between two appends. Close it now so that it refuses writes like any ended session.
   */
  private async closeIfSuperseded(sessionId: string, state: SessionState, metadata: EventMetadata): Promise<void> {
    if (state.status !== 'active' || !state.sessionKey) return;
    const conversation = await this.lifecycle.streams.load(conversationStreamName(state.sessionKey), conversationDecider);
    if (conversation.state.status !== 'open' || conversation.state.sessionId === sessionId) return;
    await this.lifecycle.streams.handle(sessionStreamName(sessionId), sessionDecider, { type: 'EndSession', reason: 'superseded', now: this.lifecycle.now() }, metadata);
  }

  private toCommand(change: SessionChange): SessionCommand {
    const now = this.lifecycle.now();
    switch (change.type) {
      case 'recordTurn':
        return { type: 'RecordTurn', messages: change.messages, usage: change.usage, status: change.status, now };
      case 'rewind':
        return { type: 'RewindTranscript', turns: change.turns, now };
      case 'rewrite':
        return { type: 'RewriteTranscript', messages: change.messages, now };
      default: {
        const unknown: never = change;
        return unknown;
      }
    }
  }
}
