// Every event type the ledger writes, so a filter naming another one (a typo) is refused instead of matching nothing.
import type { AgentStateEventType } from '../../events/agentState/agentStateEvents.js';
import type { ErasureLogEvent } from '../../events/erasure/erasureLogEvents.js';
import type { ConversationEventType } from '../../events/conversation/conversationEvents.js';
import type { GatewayEvent } from '../../events/gateway/gatewayEvents.js';
import type { JobEventType } from '../../events/job/jobEvents.js';
import type { PruneScheduleEventType } from '../../events/prune/pruneScheduleEvents.js';
import type { RuntimeBindingEventType } from '../../events/runtime/runtimeBindingEvents.js';
import type { RuntimeSessionEventType } from '../../events/runtime/runtimeSessionEvents.js';
import type { SessionStreamEventType } from '../../events/session/sessionEvents.js';

type KnownEventType =
  | ConversationEventType
  | RuntimeBindingEventType
  | SessionStreamEventType
  | RuntimeSessionEventType
  | JobEventType
  | PruneScheduleEventType
  | GatewayEvent['type']
  | ErasureLogEvent['type']
  | AgentStateEventType;

// A record over the union: the compiler refuses this file until a new event type is listed here.
const listed: Record<KnownEventType, true> = {
  ConversationOpened: true,
  SessionBound: true,
  ConversationTouched: true,
  Suspended: true,
  ResumeMarked: true,
  ResumeCleared: true,
  RestartInterrupted: true,
  MessageQueued: true,
  QueuedMessageReplaced: true,
  MessageDequeued: true,
  QueueCleared: true,
  ConversationPruned: true,
  ContinuationQueued: true,
  RoutingEntryImported: true,
  SessionExpired: true,
  ResetPolicySet: true,
  BackgroundActivityReported: true,
  RuntimeBound: true,
  RuntimeDetached: true,
  SessionCreated: true,
  ChildSessionCreated: true,
  SessionReopened: true,
  TurnStarted: true,
  TurnAbandoned: true,
  TurnRecorded: true,
  LastPromptTokensSet: true,
  TranscriptRewound: true,
  TranscriptRewritten: true,
  MemoryEntrySet: true,
  MemoryEntryRemoved: true,
  SlotCreated: true,
  SlotSwitched: true,
  CheckpointCreated: true,
  CheckpointsExpired: true,
  RolledBack: true,
  StatusNoted: true,
  SessionEnded: true,
  SessionDestroyed: true,
  ItemAppended: true,
  AgentStateChanged: true,
  ItemPopped: true,
  ItemsCleared: true,
  RuntimeSessionStarted: true,
  RuntimeRunning: true,
  RuntimeProgress: true,
  TurnCompleted: true,
  TurnFailed: true,
  RuntimeInterrupted: true,
  InterruptRequested: true,
  ApprovalRequested: true,
  ApprovalResolved: true,
  QuestionAsked: true,
  QuestionAnswered: true,
  JobScheduled: true,
  JobUpdated: true,
  JobRescheduled: true,
  JobPaused: true,
  JobResumed: true,
  JobRemoved: true,
  JobFired: true,
  JobRunReported: true,
  JobSlotsSkipped: true,
  PruneSweepClaimed: true,
  GatewayStarted: true,
  GatewayStopping: true,
  GatewayStopped: true,
  GatewayPlatformsRegistered: true,
  PersonalDataErased: true,
  PersonalDataErasureCompleted: true,
};

export const KNOWN_EVENT_TYPES: readonly string[] = Object.keys(listed).sort();

const known = new Set(KNOWN_EVENT_TYPES);

/** The types in `types` the ledger never writes, in the order given. */
export const unknownEventTypes = (types: Iterable<string>): string[] => [...types].filter((type) => !known.has(type));
