// The Hermes data as the events the ledger itself would have written: planned by the deciders, nothing written yet.
import { type ConversationEvent, conversationStreamName } from '../../events/conversation/conversationEvents.js';
import type { JsonObject } from '../../events/eventStore.js';
import { sessionStreamName, type SessionEndReason, type SessionStreamEvent, type TurnUsage } from '../../events/session/sessionEvents.js';
import { boundConversation, type ConversationCommand, conversationDecider, type ConversationState } from '../conversations/domain/conversationDecider.js';
import { sessionFollowUpsOf } from '../conversations/sessionFollowUps.js';
import type { SessionKeyOptions } from '../sessions/domain/sessionKey.js';
import type { SessionSource } from '../../events/conversation/sessionSource.js';
import { isolationFlags } from '../sessions/domain/sessionIsolation.js';
import { type SessionCommand, sessionDecider, type SessionState } from '../sessions/domain/sessionDecider.js';
import { carriedFieldsOf, importedRoutingEntry } from './hermesEntryFields.js';
import type { HermesExport } from './hermesHome.js';
import { hermesKeysOfSessions, ledgerKeyFor } from './hermesSessionKeys.js';
import { dropNulls, fallbackSource, hasUsage, parsedOrigin, usageOf, zeroUsage } from './hermesSessionFacts.js';
import { hermesOrigin, type HermesEntry } from './hermesSessionsJson.js';
import type { HermesSessionRow } from './hermesStateDb.js';
import { hermesTurns, isoFromSeconds, type PlannedTurn } from './hermesTurns.js';
import { StreamPlanner } from './streamPlanner.js';

export interface HermesImportSettings {
  keyOptions: SessionKeyOptions;
  autoCheckpoint: boolean;
  gatewayId: string;
  tenant?: string;
}

export interface PlannedStream {
  streamName: string;
  kind: 'session' | 'conversation';
  /** The session id or the session key. */
  id: string;
  events: Array<{ type: string; data: JsonObject }>;
}

export interface PlannedConversation {
  hermesKey: string;
  sessionKey: string;
  sessionId: string;
  sessionIds: string[];
  rekeyed: boolean;
}

export interface ImportPlan {
  /** Session streams first: a conversation never points at a session that is not there yet. */
  streams: PlannedStream[];
  conversations: PlannedConversation[];
  /** The jobs.json entries, id-less ones given an id derived from their content (so a re-run finds them). */
  jobs: Array<Record<string, unknown>>;
  /** What was read but not imported, and why. */
  leftOut: Array<{ item: string; reason: string }>;
  totals: { sessions: number; turns: number; messages: number };
}

const SESSION_ID = /^[A-Za-z0-9_.-]{1,128}$/;
const isValidKey = (key: string) => key.length > 0 && key.length <= 2048 && !/[\u0000-\u001f\u007f]/.test(key);

const END_REASONS: Record<string, SessionEndReason> = {
  session_reset: 'reset',
  new_session: 'reset',
  session_switch: 'switch',
  suspended: 'suspended',
  resume_pending_expired: 'resume_expired',
};

interface SessionSketch {
  id: string;
  row?: HermesSessionRow;
  entry?: HermesEntry;
  startedAt: string;
  turns: PlannedTurn[];
  usage: TurnUsage;
}

export function planHermesImport(hermes: HermesExport, settings: HermesImportSettings): ImportPlan {
  const leftOut: ImportPlan['leftOut'] = [...hermes.leftOut];
  const rows = hermes.stateDb.sessions.filter((row) => {
    if (SESSION_ID.test(row.id)) return true;
    leftOut.push({ item: `session ${row.id}`, reason: 'its id is not 1-128 of A-Z a-z 0-9 _ . -' });
    return false;
  });
  const rowsById = new Map(rows.map((row) => [row.id, row]));
  const entryBySessionId = new Map(Object.values(hermes.entries).map((entry) => [entry.session_id, entry]));
  const hermesKeys = hermesKeysOfSessions(rows, hermes.entries);
  const totals = { sessions: 0, turns: 0, messages: 0 };

  const sketch = (id: string): SessionSketch => {
    const row = rowsById.get(id);
    const entry = entryBySessionId.get(id);
    const converted = hermesTurns(hermes.stateDb.messages.get(id) ?? []);
    if (converted.inactive > 0) leftOut.push({ item: `session ${id}`, reason: `${converted.inactive} message(s) rewound away in Hermes (active = 0)` });
    for (const [role, count] of Object.entries(converted.unknownRoles))
      leftOut.push({ item: `session ${id}`, reason: `${count} message(s) with role "${role}"` });
    const startedAt = row ? isoFromSeconds(row.startedAt) : (entry?.created_at ?? entry?.updated_at ?? new Date(0).toISOString());
    return { id, row, entry, startedAt, turns: converted.turns, usage: usageOf(row, entry) };
  };

  const sessionPlanners = new Map<string, StreamPlanner<SessionState, SessionCommand, SessionStreamEvent>>();
  const createSession = (session: SessionSketch, sessionKey: string, origin: SessionSource, reason: string, hermesKey: string | undefined) => {
    const planner = new StreamPlanner(sessionDecider);
    sessionPlanners.set(session.id, planner);
    const metadata = dropNulls({
      importedFrom: 'hermes',
      hermesSource: session.row?.source,
      hermesSessionKey: hermesKey !== sessionKey ? hermesKey : undefined,
      model: session.row?.model,
      title: session.row?.title,
      hermesParentSessionId: session.row?.parentSessionId,
      hermesEndReason: session.row?.endReason,
    });
    planner.apply({ type: 'CreateSession', sessionId: session.id, sessionKey, origin, reason, now: session.startedAt, metadata });
    const turns = session.turns.length > 0 || !hasUsage(session.usage) ? session.turns : [{ messages: [], at: session.startedAt }];
    turns.forEach((turn, index) => {
      // Hermes counts tokens per session, not per turn: the session's totals ride on its last turn.
      const usage = index === turns.length - 1 ? session.usage : zeroUsage;
      planner.apply({ type: 'RecordTurn', messages: turn.messages, usage, status: 'completed', now: turn.at, autoCheckpoint: settings.autoCheckpoint });
      totals.turns += 1;
      totals.messages += turn.messages.length;
    });
    totals.sessions += 1;
  };

  /** Ends the session as Hermes' state.db says it ended; false when it did not. */
  const endAsHermesDid = (session: SessionSketch): boolean => {
    const endedAt = session.row?.endedAt;
    if (endedAt === null || endedAt === undefined) return false;
    sessionPlanners
      .get(session.id)!
      .apply({ type: 'EndSession', reason: END_REASONS[session.row?.endReason ?? ''] ?? 'superseded', now: isoFromSeconds(endedAt) });
    return true;
  };

  /** An EndSession as Hermes' state.db says the session ended, where it recorded an end. */
  const asHermesEnded = (command: Extract<SessionCommand, { type: 'EndSession' }>, session: SessionSketch | undefined) => {
    const endedAt = session?.row?.endedAt;
    if (endedAt === null || endedAt === undefined) return command;
    return { ...command, reason: END_REASONS[session?.row?.endReason ?? ''] ?? command.reason, now: isoFromSeconds(endedAt) };
  };

  // Conversations: one per sessions.json entry, its sessions bound oldest first as the resets that made them.
  const conversationStreams: PlannedStream[] = [];
  const conversations: PlannedConversation[] = [];
  const bound = new Set<string>();
  for (const [entryKey, entry] of Object.entries(hermes.entries).sort(([a], [b]) => a.localeCompare(b))) {
    const hermesKey = entry.session_key || entryKey;
    if (!isValidKey(hermesKey) || !SESSION_ID.test(entry.session_id)) {
      leftOut.push({ item: `conversation ${hermesKey}`, reason: 'its session key or session id is not valid' });
      continue;
    }
    const currentRow = rowsById.get(entry.session_id);
    const realOrigin = entry.origin ?? parsedOrigin(currentRow);
    const origin = hermesOrigin(realOrigin, { platform: entry.platform, chatType: entry.chat_type }) ?? fallbackSource(currentRow, entry);
    const sessionKey = ledgerKeyFor(hermesKey, origin, realOrigin !== null, { ...settings.keyOptions });
    const ids = rows.filter((row) => hermesKeys.get(row.id) === hermesKey).map((row) => row.id);
    if (!ids.includes(entry.session_id)) ids.push(entry.session_id);
    const sessions = ids.map(sketch).sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));

    const conversation = new StreamPlanner<ConversationState, ConversationCommand, ConversationEvent>(conversationDecider);
    const follow = (events: ConversationEvent[], sessionOf: (id: string) => SessionSketch) => {
      for (const event of events) {
        for (const { sessionId, command } of sessionFollowUpsOf(sessionKey, event)) {
          // An imported session is created from Hermes' own record (its start time, its metadata), and one Hermes
          // ended ends as Hermes recorded it (its end time and reason), not as the reset that binds the next.
          if (command.type === 'CreateSession') createSession(sessionOf(sessionId), sessionKey, origin, command.reason, hermesKey);
          else sessionPlanners.get(sessionId)!.apply(command.type === 'EndSession' ? asHermesEnded(command, sessionOf(sessionId)) : command);
        }
      }
    };
    const byId = new Map(sessions.map((session) => [session.id, session]));
    const sessionOf = (id: string) => byId.get(id)!;
    const hadActivity = (id: string | null) => (id ? (sessionPlanners.get(id)?.state.turnCount ?? 0) > 0 : false);
    sessions.forEach((session, index) => {
      const command: ConversationCommand =
        index === 0
          ? {
              type: 'ResolveSession',
              sessionKey,
              source: origin,
              gatewayId: settings.gatewayId,
              forceNew: false,
              isolation: isolationFlags(settings.keyOptions),
              newSessionId: session.id,
              currentSessionHadActivity: false,
              freshnessSeconds: Number.MAX_SAFE_INTEGER,
              touchIntervalSeconds: 0,
              now: session.startedAt,
            }
          : {
              type: 'ResetConversation',
              newSessionId: session.id,
              currentSessionHadActivity: hadActivity(conversation.state.sessionId),
              now: session.startedAt,
            };
      follow(conversation.apply(command), sessionOf);
      bound.add(session.id);
    });
    const resolved = boundConversation(conversation.state);
    const updatedAt = entry.updated_at ?? resolved.updatedAt;
    const at = updatedAt > resolved.updatedAt ? updatedAt : resolved.updatedAt;
    if (resolved.sessionId !== entry.session_id) follow(conversation.apply({ type: 'SwitchSession', sessionId: entry.session_id, now: at }), sessionOf);
    // The flags, times and display name as Hermes' entry says, and what of it the ledger does not model, verbatim.
    const {
      createdAt,
      updatedAt: replayedUpdatedAt,
      displayName,
      suspended,
      resumePending,
      resumeReason,
      lastResumeMarkedAt,
      wasAutoReset,
      autoResetReason,
      resetHadActivity,
      isFreshReset,
    } = boundConversation(conversation.state);
    const replayed = {
      createdAt,
      updatedAt: replayedUpdatedAt,
      displayName,
      suspended,
      resumePending,
      resumeReason,
      lastResumeMarkedAt,
      wasAutoReset,
      autoResetReason,
      resetHadActivity,
      isFreshReset,
    };
    const carried = carriedFieldsOf(entry as Record<string, unknown>, (entry.estimated_cost_usd ?? 0) > 0 ? 'estimated' : 'unknown');
    conversation.apply({ type: 'ImportRoutingEntry', entry: importedRoutingEntry(entry, replayed, carried), now: at });
    const parts = (entry.input_tokens ?? 0) + (entry.output_tokens ?? 0) + (entry.cache_read_tokens ?? 0) + (entry.cache_write_tokens ?? 0);
    const total = (entry as { total_tokens?: unknown }).total_tokens;
    if (typeof total === 'number' && total !== parts && (entry.input_tokens || entry.output_tokens || entry.cache_read_tokens || entry.cache_write_tokens)) {
      leftOut.push({ item: `conversation ${hermesKey}`, reason: `total_tokens ${total} is not the sum of its parts; the ledger counts ${parts}` });
    }
    conversationStreams.push({
      streamName: conversationStreamName(sessionKey, settings.tenant),
      kind: 'conversation',
      id: sessionKey,
      events: conversation.events as PlannedStream['events'],
    });
    conversations.push({
      hermesKey,
      sessionKey,
      sessionId: entry.session_id,
      sessionIds: sessions.map((session) => session.id),
      rekeyed: sessionKey !== hermesKey,
    });
  }

  // Sessions of no routing entry. Those Hermes keyed (pruned from sessions.json) are kept unbound, as Hermes left
  // them; those it never keyed (the CLI's, cron runs') get a conversation per source, so that the list and the
  // console show them: `agent:main:cli:dm` binds the CLI sessions oldest first, the newest current.
  const homeless = new Map<string, { origin: SessionSource; sessions: SessionSketch[] }>();
  for (const row of rows) {
    if (bound.has(row.id)) continue;
    const session = sketch(row.id);
    const hermesKey = hermesKeys.get(row.id);
    const realOrigin = parsedOrigin(row);
    const origin = hermesOrigin(realOrigin, { platform: row.source, chatType: row.chatType }) ?? fallbackSource(row, undefined);
    if (hermesKey && isValidKey(hermesKey)) {
      createSession(session, ledgerKeyFor(hermesKey, origin, realOrigin !== null, settings.keyOptions), origin, 'imported', hermesKey);
      endAsHermesDid(session);
      continue;
    }
    const sessionKey =
      ledgerKeyFor('', origin, true, settings.keyOptions) || `agent:${settings.keyOptions.agent ?? 'main'}:${origin.platform}:${origin.chatType}`;
    const home = homeless.get(sessionKey) ?? { origin, sessions: [] };
    home.sessions.push(session);
    homeless.set(sessionKey, home);
  }
  for (const [sessionKey, home] of [...homeless.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (conversations.some((conversation) => conversation.sessionKey === sessionKey)) {
      // A gateway conversation has this key already: the sessions stay unbound rather than replace its history.
      for (const session of home.sessions) {
        createSession(session, sessionKey, home.origin, 'imported', undefined);
        endAsHermesDid(session);
      }
      continue;
    }
    const sessions = home.sessions.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
    const conversation = new StreamPlanner<ConversationState, ConversationCommand, ConversationEvent>(conversationDecider);
    sessions.forEach((session, index) => {
      const command: ConversationCommand =
        index === 0
          ? {
              type: 'ResolveSession',
              sessionKey,
              source: home.origin,
              gatewayId: settings.gatewayId,
              forceNew: false,
              newSessionId: session.id,
              currentSessionHadActivity: false,
              freshnessSeconds: Number.MAX_SAFE_INTEGER,
              touchIntervalSeconds: 0,
              now: session.startedAt,
            }
          : { type: 'ResetConversation', newSessionId: session.id, currentSessionHadActivity: session.turns.length > 0, now: session.startedAt };
      const reason = conversation.apply(command).find((event) => event.type === 'SessionBound')?.data.reason ?? 'new';
      createSession(session, sessionKey, home.origin, reason, undefined);
      const next = sessions[index + 1];
      // Hermes' own end when it recorded one; a session it left open ends when the next one starts.
      if (!endAsHermesDid(session) && next) sessionPlanners.get(session.id)!.apply({ type: 'EndSession', reason: 'superseded', now: next.startedAt });
    });
    const current = sessions[sessions.length - 1]!;
    if (current.row?.endedAt !== null && current.row?.endedAt !== undefined) {
      // The newest session is over: the next message starts a new one, as Hermes' stale-route recovery would.
      conversation.apply({ type: 'SuspendConversation', reason: 'hermes_import', now: isoFromSeconds(current.row.endedAt) });
    }
    conversationStreams.push({
      streamName: conversationStreamName(sessionKey, settings.tenant),
      kind: 'conversation',
      id: sessionKey,
      events: conversation.events as PlannedStream['events'],
    });
    conversations.push({ hermesKey: sessionKey, sessionKey, sessionId: current.id, sessionIds: sessions.map((session) => session.id), rekeyed: false });
  }

  const sessionStreams: PlannedStream[] = [...sessionPlanners.entries()].map(([id, planner]) => ({
    streamName: sessionStreamName(id, settings.tenant),
    kind: 'session',
    id,
    events: planner.events as PlannedStream['events'],
  }));
  return { streams: [...sessionStreams, ...conversationStreams], conversations, jobs: hermes.jobs, leftOut, totals };
}
