// A transcript message as the session's events store it.
import type { JsonObject, JsonValue } from '../eventStore.js';

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

export interface MessageInput {
  role: MessageRole;
  content: JsonValue;
  name?: string;
  toolCallId?: string;
  toolCalls?: JsonValue[];
  metadata?: JsonObject;
}

/** A message as kept in the transcript: numbered within its session, never physically removed. */
export interface StoredMessage extends MessageInput {
  index: number;
  turnIndex: number;
  at: string;
}
