// The shapes an erasure leaves behind: each keeps the lifecycle skeleton (roles, indexes, times, counters, ids the service made) and nothing the person said or is.
import type { DeliveryTarget, JobOrigin, JobTask } from '../../../events/job/jobEvents.js';
import type { JsonValue } from '../../../events/eventStore.js';
import type { QueuedMessage } from '../../../events/conversation/conversationEvents.js';
import type { StoredMessage } from '../../../events/session/sessionEvents.js';
import type { SessionSource } from '../../../events/conversation/sessionSource.js';
import type { RestoredTimeline } from '../../../events/session/sessionTimeline.js';
import type { MemoryEntry, SessionTimeline, TranscriptMessage } from '../../../events/session/sessionTimeline.js';
import { ERASED_TEXT, type ErasureContext } from './erasureContext.js';

/** Platform and chat type stay (the index groups by them); every id, name and topic goes. */
export function erasedSource(source: SessionSource): SessionSource {
  return { platform: source.platform, chatType: source.chatType, isBot: source.isBot === true, roleAuthorized: source.roleAuthorized === true };
}

/** Free text that may hold anything: a placeholder where there was text, nothing where there was none. */
export function erasedTextOrNull(text: string | null | undefined): string | null {
  return text === null || text === undefined ? null : ERASED_TEXT;
}

/** Role, numbering and time stay; content, participant name, tool calls and metadata go. */
export function erasedMessage(message: StoredMessage): StoredMessage {
  return { role: message.role, content: ERASED_TEXT, index: message.index, turnIndex: message.turnIndex, at: message.at };
}

function erasedTranscriptMessage(message: TranscriptMessage): TranscriptMessage {
  return { ...erasedMessage(message), slot: message.slot, deleted: message.deleted };
}

/** A memory entry's name may itself be personal ("alice_phone"): it becomes a pseudonym, consistent across the erasure. */
export function erasedMemoryEntry(entry: MemoryEntry, context: ErasureContext): MemoryEntry {
  return { name: context.pseudonym(entry.name), value: null, metadata: {}, createdAt: entry.createdAt, updatedAt: entry.updatedAt };
}

/** A fork's copy of a session's state, with the same removals as the events that built it. */
export function erasedTimeline(timeline: SessionTimeline, context: ErasureContext): SessionTimeline {
  return { ...erasedTimelineFields(timeline, context), transcript: timeline.transcript.map(erasedTranscriptMessage) };
}

/**
 * A rollback's restored timeline. The messages it keeps are the state's own, erased by the rewrites of the events
 * that recorded them, so the count kept still points at the same messages; those it carries are erased here.
 */
export function erasedRestoredTimeline(timeline: RestoredTimeline, context: ErasureContext): RestoredTimeline {
  const { kept, following, liveCount } = timeline.transcript;
  return { ...erasedTimelineFields(timeline, context), transcript: { kept, following: following.map(erasedTranscriptMessage), liveCount } };
}

function erasedTimelineFields(timeline: Omit<SessionTimeline, 'transcript'>, context: ErasureContext): Omit<SessionTimeline, 'transcript'> {
  return {
    turnCount: timeline.turnCount,
    nextMessageIndex: timeline.nextMessageIndex,
    counters: timeline.counters,
    // Sorted by the new names, as a fold of the rewritten events sorts them.
    memory: timeline.memory.map((entry) => erasedMemoryEntry(entry, context)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    slots: timeline.slots,
    currentSlot: timeline.currentSlot,
    lastSummaryTurn: timeline.lastSummaryTurn,
    headCheckpointId: timeline.headCheckpointId,
    ...(timeline.itemCount === undefined ? {} : { itemCount: timeline.itemCount }),
  };
}

/** Mode and time stay; the id may embed a platform message id, so it becomes a pseudonym. */
export function erasedQueuedMessage(message: QueuedMessage, context: ErasureContext): QueuedMessage {
  return {
    id: context.pseudonym(message.id),
    mode: message.mode,
    text: erasedTextOrNull(message.text),
    media: [],
    sender: null,
    metadata: null,
    queuedAt: message.queuedAt,
    // A continuation's kind, reason and boot are the service's; the interrupted request it quotes is the person's.
    ...(message.kind === undefined ? {} : { kind: message.kind }),
    ...(message.continuation === undefined
      ? {}
      : { continuation: { ...message.continuation, interruptedText: erasedTextOrNull(message.continuation.interruptedText) } }),
  };
}

export function erasedJobOrigin(origin: JobOrigin, context: ErasureContext): JobOrigin {
  return {
    platform: origin.platform,
    chatId: null,
    chatName: null,
    threadId: null,
    userId: null,
    sessionKey: origin.sessionKey === null ? null : context.pseudonymousKey,
  };
}

export function erasedDeliveryTarget(target: DeliveryTarget): DeliveryTarget {
  return { platform: target.platform, chatId: ERASED_TEXT, threadId: null };
}

/** Schedule, skill and model stay; what the job says and where it came from or goes to does not. */
export function erasedJobTask(task: JobTask, context: ErasureContext): JobTask {
  return {
    name: ERASED_TEXT,
    description: erasedTextOrNull(task.description),
    prompt: erasedTextOrNull(task.prompt),
    skill: task.skill,
    deliverTo: task.deliverTo === null ? null : erasedDeliveryTarget(task.deliverTo),
    origin: task.origin === null ? null : erasedJobOrigin(task.origin, context),
    model: task.model,
  };
}

/** Every string equal to `from`, anywhere in a JSON value, becomes `to`; nothing else changes. */
export function replaceString<Value extends JsonValue>(value: Value, from: string, to: string): Value {
  if (value === from) return to as Value;
  if (Array.isArray(value)) return value.map((item) => replaceString(item, from, to)) as Value;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaceString(item, from, to)])) as Value;
  }
  return value;
}

/** For an event no redactor knows: every string goes, numbers and booleans (counters, flags) stay. */
export function eraseEveryString<Value extends JsonValue>(value: Value): Value {
  if (typeof value === 'string') return ERASED_TEXT as Value;
  if (Array.isArray(value)) return value.map(eraseEveryString) as Value;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, eraseEveryString(item)])) as Value;
  return value;
}
