// Changes to one session stream: turns, transcript, memory, slots, checkpoints and rollback. A completed turn also clears the conversation's resume mark.
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { LedgerConfig } from '../../../config/config.js';
import { conversationStreamName } from '../../../events/conversation/conversationEvents.js';
import type { EventMetadata, JsonObject, JsonValue } from '../../../events/eventStore.js';
import { type MessageInput, sessionStreamName, type TurnStatus, type TurnUsage } from '../../../events/session/sessionEvents.js';
import { CONFIG } from '../../../http/tokens.js';
import { conversationDecider } from '../../conversations/conversationDecider.js';
import { Lifecycle } from '../../lifecycle.js';
import { rollbackTarget, type SessionCommand, sessionDecider, sessionNotFound, type SessionState } from '../sessionDecider.js';
import { timelineOf } from '../sessionState.js';

export type SessionChange =
  | { type: 'recordTurn'; messages: MessageInput[]; usage: TurnUsage; status: TurnStatus }
  | { type: 'startTurn' }
  | { type: 'note'; text: string; reason: string }
  | { type: 'rewind'; turns: number }
  | { type: 'rewrite'; messages: MessageInput[] }
  | { type: 'checkpoint'; label: string | null }
  | { type: 'rollback'; checkpointId: string }
  | { type: 'setMemory'; name: string; value: JsonValue; metadata: JsonObject }
  | { type: 'removeMemory'; name: string }
  | { type: 'createSlot'; name: string }
  | { type: 'switchSlot'; name: string };

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
  constructor(
    private readonly lifecycle: Lifecycle,
    @Inject(CONFIG) private readonly config: LedgerConfig,
  ) {}

  async execute({ sessionId, change, metadata }: ChangeSessionCommand): Promise<SessionChangeResult> {
    const { lifecycle } = this;
    const stream = sessionStreamName(sessionId, metadata.tenant);
    const loaded = await lifecycle.streams.load(stream, sessionDecider);
    if (loaded.source === 'empty') throw sessionNotFound(sessionId);
    await this.closeIfSuperseded(sessionId, loaded.state, metadata);

    const result = await lifecycle.streams.handle(stream, sessionDecider, (state) => this.toCommand(stream, change, state), metadata);
    let position = result.position;
    const completedTurn = result.events.some((event) => event.type === 'TurnRecorded' && event.data.status === 'completed');
    // Children and forks are nobody's conversation session: their turns say nothing about a resume mark.
    if (completedTurn && result.state.parentSessionId === null) {
      // The seed's rule: a completed turn ends the soft-resume state of its conversation.
      const cleared = await lifecycle.streams.handle(
        conversationStreamName(result.state.sessionKey!, metadata.tenant),
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
    if (state.status !== 'active' || !state.sessionKey || state.parentSessionId !== null) return;
    const conversation = await this.lifecycle.streams.load(conversationStreamName(state.sessionKey, metadata.tenant), conversationDecider);
    if (conversation.state.status !== 'open' || conversation.state.sessionId === sessionId) return;
    await this.lifecycle.streams.handle(sessionStreamName(sessionId, metadata.tenant), sessionDecider, { type: 'EndSession', reason: 'superseded', now: this.lifecycle.now() }, metadata);
  }

  private async toCommand(stream: string, change: SessionChange, state: SessionState): Promise<SessionCommand> {
    const now = this.lifecycle.now();
    switch (change.type) {
      case 'recordTurn':
        return {
          type: 'RecordTurn',
          messages: change.messages,
          usage: change.usage,
          status: change.status,
          now,
          autoCheckpoint: this.config.autoCheckpoint,
          maxTranscriptMessages: this.config.limits.transcriptMessages,
        };
      case 'startTurn':
        return { type: 'StartTurn', now };
      case 'rewind':
        return { type: 'RewindTranscript', turns: change.turns, now };
      case 'rewrite':
        return { type: 'RewriteTranscript', messages: change.messages, now, maxTranscriptMessages: this.config.limits.transcriptMessages };
      case 'note':
        return { type: 'NoteStatus', text: change.text, reason: change.reason, now };
      case 'checkpoint':
        return { type: 'CreateCheckpoint', label: change.label, now };
      case 'rollback': {
        // The state at the checkpoint is a replay of the stream up to it; history is only ever read, never rewritten.
        const checkpoint = rollbackTarget(state, change.checkpointId);
        const then = await this.lifecycle.streams.loadAt(stream, sessionDecider, { revision: checkpoint.revision });
        return { type: 'RollBack', checkpointId: checkpoint.checkpointId, restored: timelineOf(then.state), now };
      }
      case 'setMemory':
        return { type: 'SetMemoryEntry', name: change.name, value: change.value, metadata: change.metadata, now };
      case 'removeMemory':
        return { type: 'RemoveMemoryEntry', name: change.name, now };
      case 'createSlot':
        return { type: 'CreateSlot', name: change.name, now };
      case 'switchSlot':
        return { type: 'SwitchSlot', name: change.name, now };
      default: {
        const unknown: never = change;
        return unknown;
      }
    }
  }
}
