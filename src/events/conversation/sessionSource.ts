// Where an inbound message came from (Hermes' SessionSource), as conversation, session and gateway events store it.

export const chatTypes = ['dm', 'group', 'channel', 'thread'] as const;
export type ChatType = (typeof chatTypes)[number];

export interface SessionSource {
  readonly platform: string;
  readonly chatType: ChatType;
  readonly chatId?: string | undefined;
  readonly chatName?: string | undefined;
  readonly userId?: string | undefined;
  readonly userName?: string | undefined;
  readonly threadId?: string | undefined;
  readonly chatTopic?: string | undefined;
  readonly userIdAlt?: string | undefined;
  readonly chatIdAlt?: string | undefined;
  readonly isBot: boolean;
  readonly guildId?: string | undefined;
  readonly parentChatId?: string | undefined;
  readonly messageId?: string | undefined;
  readonly roleAuthorized: boolean;
}
