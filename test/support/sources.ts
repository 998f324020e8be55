// The message sources e2e tests resolve conversations from, typed as the client sends them (Hermes' SessionSource).
import type { SessionSource } from '../../src/client/index.js';

/** A direct message on `platform` from chat `chatId`; `fields` sets any other (a group's chatType, a user, a thread). */
export function sourceOn(platform: string, chatId: string, fields: Partial<SessionSource> = {}): SessionSource {
  return { platform, chatType: 'dm', chatId, ...fields };
}

/** A Telegram direct message from chat `chatId`, the source most tests resolve. */
export function telegramSource(chatId: string, fields: Partial<SessionSource> = {}): SessionSource {
  return sourceOn('telegram', chatId, fields);
}
