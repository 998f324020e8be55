// The one-line, human-readable summary of a source ("DM with Alice", "group: My Group, thread: 12345").
import type { SessionSource } from '../../../events/conversation/sessionSource.js';

export function describeSource(source: SessionSource): string {
  const where = describeChat(source);
  // A thread-typed chat is already named as the thread; other chats name their thread after the chat.
  return source.threadId && source.chatType !== 'thread' ? `${where}, thread: ${source.threadId}` : where;
}

function describeChat(source: SessionSource): string {
  const chat = source.chatName || source.chatId || 'unknown';
  switch (source.chatType) {
    case 'dm':
      return `DM with ${source.userName || source.userId || source.userIdAlt || 'unknown user'}`;
    case 'group':
      return `group: ${chat}`;
    case 'channel':
      return `channel: ${chat}`;
    case 'thread':
      return `thread: ${source.chatName || source.threadId || source.chatId || 'unknown'}`;
    default: {
      const unhandled: never = source.chatType;
      throw new Error(`unhandled chat type: ${String(unhandled)}`);
    }
  }
}
