// Per-user isolation: whether one chat's users share a conversation or each get their own.
import type { SessionSource } from '../../../events/conversation/sessionSource.js';

export interface SessionIsolationFlags {
  /** Groups and channels get one session per participant. */
  groupSessionsPerUser: boolean;
  /** Threads get one session per participant; off by default so forum topics and Slack/Discord threads stay shared. */
  threadSessionsPerUser: boolean;
}

export function isolationFlags(flags: Partial<SessionIsolationFlags> = {}): SessionIsolationFlags {
  return {
    groupSessionsPerUser: flags.groupSessionsPerUser ?? true,
    threadSessionsPerUser: flags.threadSessionsPerUser ?? false,
  };
}

/**
 * In a thread, as Hermes reads it: the source has a thread id. A chat whose type is `thread` but that names no
 * thread id is keyed like any group chat (Hermes' build_session_key and is_shared_multi_user_session agree on this).
 */
export function isInThread(source: SessionSource): boolean {
  return Boolean(source.threadId);
}

/** Whether the session key carries the participant: a thread needs both flags, since it is nested in a group. */
export function isolatesParticipant(source: SessionSource, flags: Partial<SessionIsolationFlags> = {}): boolean {
  if (source.chatType === 'dm') return false;
  const { groupSessionsPerUser, threadSessionsPerUser } = isolationFlags(flags);
  return groupSessionsPerUser && (!isInThread(source) || threadSessionsPerUser);
}

/**
 * Whether several users talk in one session, so the prompt must not name a single user.
 * Kept as Hermes states it; it differs from isolatesParticipant only for a thread
 * with groupSessionsPerUser off and threadSessionsPerUser on (see docs/session-keys.md).
 */
export function isSharedMultiUserSession(source: SessionSource, flags: Partial<SessionIsolationFlags> = {}): boolean {
  if (source.chatType === 'dm') return false;
  const { groupSessionsPerUser, threadSessionsPerUser } = isolationFlags(flags);
  return isInThread(source) ? !threadSessionsPerUser : !groupSessionsPerUser;
}
