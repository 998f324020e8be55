// Reset, switch, suspend and resume marks on one conversation: decide on its stream, then follow on the session streams.
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { conversationStreamName, type ResumeReason } from '../../../events/conversation/conversationEvents.js';
import type { EventMetadata } from '../../../events/eventStore.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import { Lifecycle } from '../../lifecycle.js';
import { sessionDecider } from '../../sessions/sessionDecider.js';
import { type ConversationCommand, conversationDecider, conversationNotFound, type ConversationState } from '../conversationDecider.js';
import { conversationEntry, type ConversationEntry } from '../conversationEntry.js';
import { followSessionBinding } from '../sessionBinding.js';

export type ConversationChange =
  | { type: 'reset' }
  | { type: 'switch'; sessionId: string }
  | { type: 'suspend'; reason: string }
  | { type: 'markResumePending'; reason: ResumeReason }
  | { type: 'clearResumePending' };

export class ChangeConversationCommand {
  constructor(
    readonly sessionKey: string,
    readonly change: ConversationChange,
    readonly metadata: EventMetadata,
  ) {}
}

export interface ConversationChangeResult {
  sessionKey: string;
  sessionId: string;
  previousSessionId: string | null;
  changed: boolean;
  entry: ConversationEntry;
  position: number;
}

@CommandHandler(ChangeConversationCommand)
export class ChangeConversationHandler implements ICommandHandler<ChangeConversationCommand, ConversationChangeResult> {
  constructor(private readonly lifecycle: Lifecycle) {}

  async execute({ sessionKey, change, metadata }: ChangeConversationCommand): Promise<ConversationChangeResult> {
    const { lifecycle } = this;
    let previousSessionId: string | null = null;
    const result = await lifecycle.streams.handle(
      conversationStreamName(sessionKey),
      conversationDecider,
      async (state) => {
        if (state.status === 'absent') throw conversationNotFound();
        previousSessionId = state.sessionId;
        return this.toCommand(change, state);
      },
      metadata,
    );
    const position = Math.max(result.position, await followSessionBinding(lifecycle, sessionKey, result.events, metadata));
    const session = await lifecycle.streams.load(sessionStreamName(result.state.sessionId!), sessionDecider);
    return {
      sessionKey,
      sessionId: result.state.sessionId!,
      previousSessionId,
      changed: result.written,
      entry: conversationEntry(result.state, session.state),
      position,
    };
  }

  private async toCommand(change: ConversationChange, state: ConversationState): Promise<ConversationCommand> {
    const now = this.lifecycle.now();
    switch (change.type) {
      case 'reset': {
        const current = await this.lifecycle.streams.load(sessionStreamName(state.sessionId!), sessionDecider);
        return { type: 'ResetConversation', newSessionId: this.lifecycle.newSessionId(), currentSessionHadActivity: current.state.turnCount > 0, now };
      }
      case 'switch':
        return { type: 'SwitchSession', sessionId: change.sessionId, now };
      case 'suspend':
        return { type: 'SuspendConversation', reason: change.reason, now };
      case 'markResumePending':
        return { type: 'MarkResumePending', reason: change.reason, now };
      case 'clearResumePending':
        return { type: 'ClearResumePending', reason: 'manual', now };
      default: {
        const unknown: never = change;
        return unknown;
      }
    }
  }
}
