// The Hermes data as the events the ledger itself would have written: planned by the deciders, nothing written yet.
import { type ConversationEvent, conversationStreamName, resumeReasons, type ResumeReason } from '../../events/conversation/conversationEvents.js';
import type { JsonObject } from '../../events/eventStore.js';
import { sessionStreamName, type SessionEndReason, type SessionStreamEvent, type TurnUsage } from '../../events/session/sessionEvents.js';
import { type ConversationCommand, conversationDecider, type ConversationState } from '../conversations/conversationDecider.js';
import type { SessionKeyOptions } from '../sessions/domain/sessionKey.js';
import type { SessionSource } from '../sessions/domain/sessionSource.js';
import { type SessionCommand, sessionDecider, type SessionState } from '../sessions/sessionDecider.js';
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
  const leftOut: ImportPlan['leftOut'] = [];
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
    for (const [role, count] of Object.entries(converted.unknownRoles)) leftOut.push({ item: `session ${id}`, reason: `${count} message(s) with role "${role}"` });
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
        if (event.type !== 'SessionBound') continue;
        const { sessionId, previousSessionId, reason, at } = event.data;
        if (reason === 'switch') sessionPlanners.get(sessionId)!.apply({ type: 'ReopenSession', now: at });
        else createSession(sessionOf(sessionId), sessionKey, origin, reason, hermesKey);
        if (previousSessionId && previousSessionId !== sessionId) {
          sessionPlanners.get(previousSessionId)!.apply({ type: 'EndSession', reason: reason === 'new' ? 'forced' : reason, now: at });
        }
      }
    };
    const byId = new Map(sessions.map((session) => [session.id, session]));
    const sessionOf = (id: string) => byId.get(id)!;
    const hadActivity = (id: string | null) => (id ? (sessionPlanners.get(id)?.state.turnCount ?? 0) > 0 : false);
    sessions.forEach((session, index) => {
      const command: ConversationCommand =
        index === 0
          ? { type: 'ResolveSession', sessionKey, source: origin, gatewayId: settings.gatewayId, forceNew: false, newSessionId: session.id, currentSessionHadActivity: false, freshnessSeconds: Number.MAX_SAFE_INTEGER, touchIntervalSeconds: 0, now: session.startedAt }
          : { type: 'ResetConversation', newSessionId: session.id, currentSessionHadActivity: hadActivity(conversation.state.sessionId), now: session.startedAt };
      follow(conversation.apply(command), sessionOf);
      bound.add(session.id);
    });
    const updatedAt = entry.updated_at ?? conversation.state.updatedAt!;
    const at = updatedAt > conversation.state.updatedAt! ? updatedAt : conversation.state.updatedAt!;
    if (conversation.state.sessionId !== entry.session_id) follow(conversation.apply({ type: 'SwitchSession', sessionId: entry.session_id, now: at }), sessionOf);
    // The last activity, and a reset that has since seen a message, as Hermes' entry says.
    if (at > conversation.state.updatedAt! || (conversation.state.isFreshReset && !entry.is_fresh_reset)) {
      conversation.apply({ type: 'ResolveSession', sessionKey, source: origin, gatewayId: settings.gatewayId, forceNew: false, newSessionId: entry.session_id, currentSessionHadActivity: false, freshnessSeconds: Number.MAX_SAFE_INTEGER, touchIntervalSeconds: 0, now: at });
    }
    if (entry.suspended) {
      conversation.apply({ type: 'SuspendConversation', reason: 'hermes_import', now: at });
    } else if (entry.resume_pending) {
      const reason: ResumeReason = (resumeReasons as readonly string[]).includes(entry.resume_reason ?? '') ? (entry.resume_reason as ResumeReason) : 'restart_interrupted';
      conversation.apply({ type: 'MarkResumePending', reason, now: entry.last_resume_marked_at ?? at });
    }
    conversationStreams.push({ streamName: conversationStreamName(sessionKey, settings.tenant), kind: 'conversation', id: sessionKey, events: conversation.events as PlannedStream['events'] });
    conversations.push({ hermesKey, sessionKey, sessionId: entry.session_id, sessionIds: sessions.map((session) => session.id), rekeyed: sessionKey !== hermesKey });
  }

  // Sessions of no routing entry (pruned from sessions.json, or never a gateway chat, like CLI sessions): kept, unbound.
  for (const row of rows) {
    if (bound.has(row.id)) continue;
    const session = sketch(row.id);
    const hermesKey = hermesKeys.get(row.id);
    const realOrigin = parsedOrigin(row);
    const origin = hermesOrigin(realOrigin, { platform: row.source, chatType: row.chatType }) ?? fallbackSource(row, undefined);
    const sessionKey = hermesKey && isValidKey(hermesKey) ? ledgerKeyFor(hermesKey, origin, realOrigin !== null, settings.keyOptions) : ledgerKeyFor('', origin, true, settings.keyOptions) || `agent:${settings.keyOptions.agent ?? 'main'}:${origin.platform}:${origin.chatType}`;
    createSession(session, sessionKey, origin, 'imported', hermesKey);
    if (row.endedAt !== null) sessionPlanners.get(row.id)!.apply({ type: 'EndSession', reason: END_REASONS[row.endReason ?? ''] ?? 'superseded', now: isoFromSeconds(row.endedAt) });
  }

  const sessionStreams: PlannedStream[] = [...sessionPlanners.entries()].map(([id, planner]) => ({
    streamName: sessionStreamName(id, settings.tenant),
    kind: 'session',
    id,
    events: planner.events as PlannedStream['events'],
  }));
  return { streams: [...sessionStreams, ...conversationStreams], conversations, jobs: hermes.jobs, leftOut, totals };
}
