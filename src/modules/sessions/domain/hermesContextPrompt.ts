// The "## Current Session Context" block as Hermes' build_session_context_prompt renders it (fork snapshot 9a75ff049), for gateways that show their agent Hermes' bytes.
import type { SessionSource } from '../../../events/conversation/sessionSource.js';
import { DEFAULT_PII_SAFE_PLATFORMS, redactChatId, redactUserId } from './piiRedaction.js';
import { hermesUntrustedPromptValue as quoted, UNTRUSTED_METADATA_PREFACE } from './untrustedPromptValue.js';

export interface HermesSessionContext {
  source: SessionSource;
  /** In the gateway's order; `local` is always listed first by Hermes and is left out here if given. */
  connectedPlatforms: readonly string[];
  /** At most one per platform, in the order they are to be listed. */
  homeChannels: ReadonlyArray<{ platform: string; chatId: string; name: string }>;
  sharedMultiUserSession: boolean;
  /** The caller's wish; ids are hashed only on a platform `isRedactable` accepts (Hermes' `_should_redact_pii`). */
  redactPii: boolean;
  isRedactable?: (platform: string) => boolean;
  /** Whether the agent has Slack or Discord tools this session (Hermes' notes differ); neither by default. */
  toolsLoaded?: { slack?: boolean; discord?: boolean };
  /** How the prompt names the Hermes home folder (Hermes' `display_hermes_home()`). */
  hermesHome?: string;
}

const SLACK_TOOLS_NOTE =
  '**Platform notes:** You are running inside Slack and have access to Slack-specific tools this session. Consult the available Slack tool schemas for the exact operations supported (e.g. channel history and thread lookups, posting, reactions) — use those tools for Slack-specific requests, and do not promise Slack actions beyond what the loaded tools actually expose.';
const SLACK_NO_TOOLS_NOTE =
  "**Platform notes:** You are running inside Slack. You do NOT have access to Slack-specific APIs — you cannot search channel history, pin/unpin messages, manage channels, or list users. Do not promise to perform these actions. The gateway may inline the current message's Slack block/attachment payload when available, but you still cannot call Slack APIs yourself.";
const DISCORD_NO_TOOLS_NOTE =
  '**Platform notes:** You are running inside Discord. You do NOT have access to Discord-specific APIs — you cannot search channel history, pin messages, manage roles, or list server members. Do not promise to perform these actions. If the user asks, explain that you can only read messages sent directly to you and respond.';
const STATIC_NOTES: Readonly<Record<string, string>> = {
  bluebubbles:
    '**Platform notes:** You are responding via iMessage. Keep responses short and conversational — think texts, not essays. Structure longer replies as separate short thoughts, each separated by a blank line (double newline). Each block between blank lines will be delivered as its own iMessage bubble, so write accordingly: one idea per bubble, 1–3 sentences each. If the user needs a detailed answer, give the short version first and offer to elaborate.',
  yuanbao:
    '**Platform notes:** You are running inside Yuanbao. To send a private (DM) message to a user in the current group, use the yb_send_dm tool (look up the recipient by name or pass their user_id). Your normal reply is delivered to the group you are responding in.',
};

export function hermesSessionContextPrompt(context: HermesSessionContext): string {
  const { source } = context;
  const redacts = context.redactPii && (context.isRedactable ?? ((platform) => DEFAULT_PII_SAFE_PLATFORMS.has(platform)))(source.platform);
  const chatLabel = (chatId: string) => (redacts ? redactChatId(chatId) : chatId);
  const chatId = source.chatId ?? '';
  const isLocal = source.platform === 'local';

  const lines = ['## Current Session Context', '', UNTRUSTED_METADATA_PREFACE, ''];
  const platformName = pythonTitle(source.platform);
  if (isLocal) lines.push(`**Source:** ${platformName} (the machine running this agent)`);
  else lines.push(`**Source:** ${platformName} (${quoted(redacts ? redactedDescription(source, chatLabel) : description(source))})`);

  if (source.chatTopic) lines.push(`**Channel Topic:** ${quoted(source.chatTopic)}`);

  if (source.platform === 'matrix') {
    lines.push('', `**Matrix Room:** ${quoted(source.chatName || chatId)}`, `**Matrix Room ID:** ${chatLabel(chatId)}`);
    if (source.threadId) lines.push(`**Matrix Thread:** ${chatLabel(source.threadId)}`);
    lines.push(
      '**Matrix room boundary:** Treat this turn as scoped to the current Matrix room/thread only. Do not assume unresolved references are about other Matrix rooms or projects unless the user explicitly says so.',
    );
  }

  if (context.sharedMultiUserSession) {
    const label = source.threadId ? 'Multi-user thread' : 'Multi-user session';
    lines.push(`**Session type:** ${label} — messages are prefixed with [sender name]. Multiple users may participate.`);
  } else if (source.userName) {
    lines.push(`**User:** ${quoted(source.userName)}`);
  } else if (source.userId) {
    lines.push(`**User ID:** ${quoted(redacts ? redactUserId(source.userId) : source.userId)}`);
  }

  lines.push(...platformNotes(context));
  const connected = context.connectedPlatforms.filter((platform) => platform !== 'local').map((platform) => `${platform}: Connected ✓`);
  lines.push(`**Connected Platforms:** ${['local (files on this machine)', ...connected].join(', ')}`);

  if (context.homeChannels.length > 0) {
    lines.push('', '**Home Channels (default destinations):**');
    for (const home of context.homeChannels) lines.push(`  - ${home.platform}: ${quoted(home.name)} (ID: ${quoted(chatLabel(home.chatId))})`);
  }

  lines.push('', '**Delivery options for scheduled tasks:**');
  if (isLocal) lines.push('- `"origin"` → Local output (saved to files)');
  else lines.push(`- \`"origin"\` → Back to this chat (${quoted(source.chatName || chatLabel(chatId))})`);
  lines.push(`- \`"local"\` → Save to local files only (${context.hermesHome ?? '~/.hermes'}/cron/output/)`);
  for (const home of context.homeChannels) lines.push(`- \`"${home.platform}"\` → Home channel (${quoted(home.name)})`);

  lines.push('', '*For explicit targeting, use `"platform:chat_id"` format if the user provides a specific chat ID.*');
  return lines.join('\n');
}

// Hermes' SessionSource.description: a thread-typed chat is named by its chat, and any thread id is appended.
function description(source: SessionSource): string {
  const described = describe(source.chatType, source.userName || source.userId || 'user', source.chatName || source.chatId || '');
  return source.threadId ? `${described}, thread: ${source.threadId}` : described;
}

// Under redaction Hermes names no thread, and an id the description falls back to is hashed.
function redactedDescription(source: SessionSource, chatLabel: (chatId: string) => string): string {
  const user = source.userName || (source.userId ? redactUserId(source.userId) : 'user');
  return describe(source.chatType, user, source.chatName || chatLabel(source.chatId ?? ''));
}

function describe(chatType: SessionSource['chatType'], user: string, chat: string): string {
  if (chatType === 'dm') return `DM with ${user}`;
  if (chatType === 'group' || chatType === 'channel') return `${chatType}: ${chat}`;
  return chat;
}

function platformNotes(context: HermesSessionContext): string[] {
  const { source } = context;
  if (source.platform === 'slack') return ['', context.toolsLoaded?.slack ? SLACK_TOOLS_NOTE : SLACK_NO_TOOLS_NOTE];
  if (source.platform === 'discord') return discordNotes(context);
  const note = Object.hasOwn(STATIC_NOTES, source.platform) ? STATIC_NOTES[source.platform] : undefined;
  return note ? ['', note] : [];
}

function discordNotes(context: HermesSessionContext): string[] {
  const { source } = context;
  if (!context.toolsLoaded?.discord) return ['', DISCORD_NO_TOOLS_NOTE];
  const lines = ['', '**Discord IDs (for the `discord` / `discord_admin` tools):**'];
  if (source.guildId) lines.push(`  - Guild: \`${source.guildId}\``);
  if (source.threadId && source.parentChatId) {
    lines.push(`  - Parent channel: \`${source.parentChatId}\``, `  - Thread: \`${source.threadId}\` (use as \`channel_id\` for fetch_messages etc.)`);
  } else {
    lines.push(`  - Channel: \`${source.chatId ?? ''}\``);
  }
  if (source.messageId) {
    lines.push('  - Triggering message: provided per-turn in the incoming user message (use it as `message_id` for reply/react/pin)');
  }
  return lines;
}

// Python's str.title() on a platform name (`api_server` → `Api_Server`): a letter after a non-letter is upper case.
function pythonTitle(name: string): string {
  let previousCased = false;
  let titled = '';
  for (const char of name) {
    const cased = char.toLowerCase() !== char.toUpperCase();
    titled += cased ? (previousCased ? char.toLowerCase() : char.toUpperCase()) : char;
    previousCased = cased;
  }
  return titled;
}
