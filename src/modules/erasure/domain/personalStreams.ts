// Which streams hold a person's data, what each of them is to the erasure, and how each of its events is rewritten.
import { agentStateStreamPrefix, sharedStateOfKey, sharedStateStreamName } from '../../../events/agentState/agentStateEvents.js';
import { conversationStreamName } from '../../../events/conversation/conversationEvents.js';
import type { JsonObject } from '../../../events/eventStore.js';
import { gatewayStreamName } from '../../../events/gateway/gatewayEvents.js';
import { jobStreamName, type JobEvent } from '../../../events/job/jobEvents.js';
import type { EventRewrite, RewritePlan, StoredEvent } from '../../../events/postgres/eventRedaction.js';
import { runtimeBindingStreamName } from '../../../events/runtime/runtimeBindingEvents.js';
import { runtimeSessionStreamName } from '../../../events/runtime/runtimeSessionEvents.js';
import { sessionStreamName } from '../../../events/session/sessionEvents.js';
import { streamScope } from '../../../events/streamScope.js';
import { canonicalJson } from '../../../events/streamStateStore.js';
import { upcastEvent } from '../../../events/upcasting/upcastingEventStore.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';
import { escapeKeyPart } from '../../sessions/domain/sessionKey.js';
import { agentSessionId, agentSessionOfKey } from '../../agentSessions/domain/agentSessionId.js';
import { replaceString } from './erasedValues.js';
import { type ErasureContext, isErasedKey } from './erasureContext.js';
import { conversationRedactors } from './redactConversationEvent.js';
import { gatewayRedactors } from './redactGatewayEvent.js';
import { jobRedactors } from './redactJobEvent.js';
import { runtimeBindingRedactors, runtimeSessionRedactors } from './redactRuntimeEvents.js';
import { sessionRedactors } from './redactSessionEvent.js';
import { redactWith } from './redactors.js';
import { agentStateRedactors } from './redactAgentStateEvent.js';

/**
 * conversation and runtime-binding: the streams named after the key (renamed to the pseudonymous key);
 * session, runtime-session, job: the person's own, by the key their first event (a job: its origin) names;
 * agent-state: a key-value state whose changes name the key as their owner (a session's own state, a shared state);
 * gateway and mention: someone else's streams that name the key, where only the key and its origin change.
 */
export type StreamRole = 'conversation' | 'runtime-binding' | 'session' | 'runtime-session' | 'job' | 'agent-state' | 'gateway' | 'mention';

export interface ErasurePlan extends RewritePlan {
  roles: ReadonlyMap<string, StreamRole>;
}

type Streams = ReadonlyMap<string, readonly StoredEvent[]>;

/**
 * The streams an erasure of `context` starts from: the two named after the key, and for the key of a session created by
 * its external id, that id's first session (every later one names the same key, and the scan finds it).
 */
export function anchorStreams(context: ErasureContext): string[] {
  const agentSession = agentSessionOfKey(context.sessionKey);
  const sharedState = sharedStateOfKey(context.sessionKey);
  return [
    conversationStreamName(context.sessionKey, context.tenant),
    runtimeBindingStreamName(context.sessionKey, context.tenant),
    ...(agentSession ? [sessionStreamName(agentSessionId(agentSession.namespace, agentSession.externalId, 0), context.tenant)] : []),
    ...(sharedState ? [sharedStateStreamName(sharedState.namespace, sharedState.stateId, context.tenant)] : []),
  ];
}

/** The same streams after the erasure, under the pseudonymous key. */
export function renamedAnchorStreams(context: ErasureContext): string[] {
  return [conversationStreamName(context.pseudonymousKey, context.tenant), runtimeBindingStreamName(context.pseudonymousKey, context.tenant)];
}

/** A stream the scan found in another tenant belongs to someone else: the same key there is another person. */
export function inErasedTenant(streamName: string, context: ErasureContext): boolean {
  return streamScope(streamName).tenant === (context.tenant ?? '');
}

const current = (event: StoredEvent) => upcastEvent({ id: '', ...event });

export function streamRole(streamName: string, events: readonly StoredEvent[], context: ErasureContext): StreamRole {
  const { tenant } = context;
  const [conversation, binding] = anchorStreams(context);
  const [conversationAfter, bindingAfter] = renamedAnchorStreams(context);
  if (streamName === conversation || streamName === conversationAfter) return 'conversation';
  if (streamName === binding || streamName === bindingAfter) return 'runtime-binding';
  const first = events[0] ? current(events[0]) : undefined;
  // runtime-binding-… shares the runtime- prefix: another key's binding is only a mention.
  if (streamName.startsWith(runtimeBindingStreamName('', tenant))) return 'mention';
  if (streamName.startsWith(sessionStreamName('', tenant)) && first?.type === 'SessionCreated' && isErasedKey(first.data.sessionKey, context)) return 'session';
  if (streamName.startsWith(runtimeSessionStreamName('', tenant)) && first?.type === 'RuntimeSessionStarted' && isErasedKey(first.data.sessionKey, context))
    return 'runtime-session';
  if (streamName.startsWith(jobStreamName('', tenant)) && events.some((event) => jobOriginKeys(current(event)).some((key) => isErasedKey(key, context))))
    return 'job';
  if (streamName.startsWith(agentStateStreamPrefix(tenant)) && first?.type === 'AgentStateChanged' && isErasedKey(first.data.ownerKey, context))
    return 'agent-state';
  if (streamName.startsWith(gatewayStreamName('', tenant))) return 'gateway';
  return 'mention';
}

/** The session keys a job event's origin names (a job created from a conversation remembers its key). */
function jobOriginKeys(event: { type: string; data: JsonObject }): unknown[] {
  const job = event as unknown as JobEvent;
  switch (job.type) {
    case 'JobScheduled':
    case 'JobFired':
      return [job.data.task.origin?.sessionKey];
    case 'JobUpdated':
      return [job.data.changes.origin?.sessionKey];
    default:
      return [];
  }
}

/** Streams the person's own streams point to: the conversation's sessions, their children, the binding's runtime sessions. */
export function referencedStreams(streams: Streams, context: ErasureContext): string[] {
  const referenced: string[] = [];
  for (const [name, events] of streams) {
    const role = streamRole(name, events, context);
    for (const stored of events) {
      const { type, data } = current(stored);
      if (role === 'conversation' && type === 'SessionBound') {
        for (const id of [data.sessionId, data.previousSessionId]) if (typeof id === 'string') referenced.push(sessionStreamName(id, context.tenant));
      } else if (role === 'session' && type === 'ChildSessionCreated' && typeof data.childSessionId === 'string') {
        referenced.push(sessionStreamName(data.childSessionId, context.tenant));
      } else if (role === 'runtime-binding' && type === 'RuntimeBound') {
        for (const id of [data.runtimeSessionId, data.previousRuntimeSessionId])
          if (typeof id === 'string') referenced.push(runtimeSessionStreamName(id, context.tenant));
      }
    }
  }
  return referenced;
}

/**
 * The person's own chat ids by platform, from the sources their conversation and sessions recorded: every id of a DM
 * (a DM chat is one person's, and on Telegram their DM's chat id is their user id), and in a group, channel or thread
 * the participant's ids when the key is theirs alone (isolated per user). A group's own chat id is not the person's:
 * everyone else in it still uses it, and so does a home channel set there.
 */
export function personalChatIds(streams: Streams, context: ErasureContext): Map<string, Set<string>> {
  const ids = new Map<string, Set<string>>();
  const add = (platform: string, id: string | undefined) => {
    if (!id) return;
    const known = ids.get(platform) ?? new Set<string>();
    ids.set(platform, known.add(id));
  };
  const keyEndsWith = (id: string) => context.sessionKey.endsWith(`:${id}`) || context.sessionKey.endsWith(`:${escapeKeyPart(id)}`);
  const note = (origin: SessionSource | undefined) => {
    if (!origin || typeof origin.platform !== 'string') return;
    if (origin.chatType === 'dm') {
      for (const id of [origin.chatId, origin.chatIdAlt, origin.userId, origin.userIdAlt]) add(origin.platform, id);
      return;
    }
    const participant = [origin.userIdAlt, origin.userId].filter((id): id is string => Boolean(id));
    if (participant.some(keyEndsWith)) for (const id of participant) add(origin.platform, id);
  };
  for (const [name, events] of streams) {
    const role = streamRole(name, events, context);
    if (role !== 'conversation' && role !== 'session') continue;
    for (const stored of events) {
      const { type, data } = current(stored);
      if (type === 'ConversationOpened' || type === 'SessionBound' || type === 'SessionCreated') note(data.origin as unknown as SessionSource | undefined);
    }
  }
  return ids;
}

/** What the erasure's scan looks for besides the key: gateways of the erased tenant whose registration holds one of the person's chat ids. */
export function homeChannelHolders(chatIds: ReadonlyMap<string, ReadonlySet<string>>, context: ErasureContext) {
  return {
    values: [...chatIds.values()].flatMap((ids) => [...ids]),
    types: ['GatewayPlatformsRegistered'],
    accept: (streamName: string) => inErasedTenant(streamName, context) && streamName.startsWith(gatewayStreamName('', context.tenant)),
  };
}

/** Roles of the streams that are the person's own: every request that wrote to them was the person's. */
const OWN_ROLES: ReadonlySet<StreamRole> = new Set(['conversation', 'runtime-binding', 'session', 'runtime-session', 'job', 'agent-state']);

/**
 * What finds the stored answers of the person's keyed requests: the tags (metadata `idempotencyKey`) of every event of
 * their own streams, and of someone else's events that held their values (rewritten by this erasure, now or by an
 * earlier pass); and their ids, as answers hold them: the key (not the pseudonymous one), session, runtime-session
 * and job ids.
 */
export function personalRequests(streams: Streams, plan: ErasurePlan, context: ErasureContext): { keyTags: Set<string>; ids: Set<string> } {
  const keyTags = new Set<string>();
  const ids = new Set<string>();
  if (context.sessionKey !== context.pseudonymousKey) ids.add(context.sessionKey);
  const rewritten = new Set(plan.events.map((event) => event.position));
  const prefixes: Partial<Record<StreamRole, string>> = {
    session: sessionStreamName('', context.tenant),
    'runtime-session': runtimeSessionStreamName('', context.tenant),
    job: jobStreamName('', context.tenant),
  };
  for (const [name, events] of streams) {
    const role = plan.roles.get(name) ?? streamRole(name, events, context);
    const prefix = prefixes[role];
    if (prefix !== undefined && name.startsWith(prefix)) ids.add(name.slice(prefix.length));
    for (const event of events) {
      const tag = event.metadata.idempotencyKey;
      if (typeof tag !== 'string') continue;
      if (OWN_ROLES.has(role) || rewritten.has(event.position) || event.metadata.erasureId === context.erasureId) keyTags.add(tag);
    }
  }
  return { keyTags, ids };
}

function redactedData(role: StreamRole, type: string, data: JsonObject, context: ErasureContext): JsonObject {
  switch (role) {
    case 'conversation':
      return redactWith(conversationRedactors, type, data, context);
    case 'runtime-binding':
      return redactWith(runtimeBindingRedactors, type, data, context);
    case 'session':
      return redactWith(sessionRedactors, type, data, context);
    case 'runtime-session':
      return redactWith(runtimeSessionRedactors, type, data, context);
    case 'job':
      return redactWith(jobRedactors, type, data, context);
    case 'agent-state':
      return redactWith(agentStateRedactors, type, data, context);
    case 'gateway':
      return replaceString(redactWith(gatewayRedactors, type, data, context), context.sessionKey, context.pseudonymousKey);
    case 'mention':
      return replaceString(data, context.sessionKey, context.pseudonymousKey);
    default: {
      const unknown: never = role;
      return unknown;
    }
  }
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(canonicalJson(a)) === JSON.stringify(canonicalJson(b));

/**
 * Every event whose stored data differs from its redacted form is rewritten, in the current schema version
 * (an old version may hold copies the current one dropped) and marked with the erasure's id.
 */
export function planErasure(streams: Streams, context: ErasureContext): ErasurePlan {
  const roles = new Map<string, StreamRole>();
  const renames = new Map<string, string>();
  const events: EventRewrite[] = [];
  const [conversation, binding] = anchorStreams(context);
  const [conversationAfter, bindingAfter] = renamedAnchorStreams(context);
  for (const [name, stored] of streams) {
    const role = streamRole(name, stored, context);
    roles.set(name, role);
    if (name === conversation) renames.set(name, conversationAfter!);
    if (name === binding) renames.set(name, bindingAfter!);
    for (const event of stored) {
      const upcast = current(event);
      const data = redactedData(role, upcast.type, upcast.data, context);
      if (sameJson(data, event.data)) continue;
      const schemaVersion = upcast.metadata.schemaVersion;
      events.push({
        position: event.position,
        data,
        metadata: { ...event.metadata, ...(schemaVersion === undefined ? {} : { schemaVersion }), erasureId: context.erasureId },
      });
    }
  }
  return { renames, events, roles };
}
