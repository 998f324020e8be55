"""The service's request and answer shapes, as it sends them (camelCase), for type checkers.

Written against ``docs/api.md`` and ``/openapi.json``; tests/test_openapi_drift.py and the end-to-end tests fail
when the service and these drift apart.
"""

from __future__ import annotations

from typing import Any, Literal, Optional, TypedDict

Json = Any
JsonObject = dict[str, Any]

ChatType = Literal["dm", "group", "channel", "thread"]
MessageRole = Literal["system", "user", "assistant", "tool"]
ResumeReason = Literal["restart_timeout", "shutdown_timeout", "restart_interrupted"]
TurnStatus = Literal["completed", "failed", "interrupted"]


class LedgerSource(TypedDict, total=False):
    platform: str
    chatType: str
    chatId: str
    chatName: str
    userId: str
    userName: str
    threadId: str
    chatTopic: str
    userIdAlt: str
    chatIdAlt: str
    isBot: bool
    guildId: str
    parentChatId: str
    messageId: str
    roleAuthorized: bool


class ResolveOptions(TypedDict, total=False):
    groupSessionsPerUser: bool
    threadSessionsPerUser: bool
    agent: str


class _EntryRequired(TypedDict):
    sessionKey: str
    sessionId: str
    createdAt: str
    updatedAt: str
    origin: LedgerSource
    displayName: Optional[str]
    platform: str
    chatType: str
    gatewayId: str
    suspended: bool
    resumePending: bool
    resumeReason: Optional[str]
    lastResumeMarkedAt: Optional[str]
    wasAutoReset: bool
    autoResetReason: Optional[str]
    resetHadActivity: bool
    isFreshReset: bool
    expiryFinalized: bool
    inputTokens: int
    outputTokens: int
    cacheReadTokens: int
    cacheWriteTokens: int
    totalTokens: int
    estimatedCostUsd: float
    lastPromptTokens: int
    costStatus: str
    turnCount: int


class LedgerEntry(_EntryRequired, total=False):
    """A routing entry: Hermes' ``SessionEntry``, camelCase. ``sessionIds`` when read from the conversation stream."""

    sessionIds: list[str]


class ResolveResponse(TypedDict):
    sessionKey: str
    sessionId: str
    state: Literal["warm", "resumed", "cold"]
    created: bool
    entry: LedgerEntry
    position: int


class ConversationResponse(LedgerEntry):
    revision: int
    position: int


class ConversationChangeResponse(TypedDict):
    sessionKey: str
    sessionId: str
    previousSessionId: Optional[str]
    changed: bool
    entry: LedgerEntry
    position: int


class ContextResponse(TypedDict):
    sessionKey: str
    sessionId: str
    redactPii: bool
    prompt: str


class _MessageRequired(TypedDict):
    role: MessageRole
    content: Json


class Message(_MessageRequired, total=False):
    name: str
    toolCallId: str
    toolCalls: list[Json]
    metadata: JsonObject


class TurnUsage(TypedDict, total=False):
    inputTokens: int
    outputTokens: int
    cacheReadTokens: int
    cacheWriteTokens: int
    lastPromptTokens: Optional[int]
    costUsd: float


class Counters(TypedDict):
    inputTokens: int
    outputTokens: int
    cacheReadTokens: int
    cacheWriteTokens: int
    totalTokens: int
    estimatedCostUsd: float
    lastPromptTokens: int


class RecordTurnResponse(TypedDict):
    turnIndex: int
    revision: int
    position: int
    counters: Counters
    checkpointId: Optional[str]


class StartTurnResponse(TypedDict):
    turnIndex: int
    revision: int
    position: int


class TranscriptMessage(Message, total=False):
    index: int
    turnIndex: int
    at: str
    slot: str
    deleted: bool


class TranscriptResponse(TypedDict):
    sessionId: str
    messages: list[TranscriptMessage]
    revision: int
    position: int


class RewriteResponse(TypedDict):
    messageCount: int
    replacedCount: int
    revision: int
    position: int


class RewindResponse(TypedDict):
    rewoundCount: int
    turnsUndone: int
    targetText: Optional[str]
    revision: int
    position: int


class CheckpointResponse(TypedDict):
    checkpointId: str
    label: Optional[str]
    revision: int
    turnIndex: int
    position: int


class Checkpoint(TypedDict):
    checkpointId: str
    label: Optional[str]
    revision: int
    turnIndex: int
    createdAt: str
    auto: bool
    onCurrentTimeline: bool


class CheckpointsPage(TypedDict):
    sessionId: str
    checkpoints: list[Checkpoint]
    nextBefore: Optional[int]
    revision: int
    position: int


class RollbackResponse(TypedDict):
    checkpointId: str
    targetRevision: int
    fromRevision: int
    turnIndex: int
    revision: int
    position: int


class TreeNode(TypedDict):
    sessionId: str
    parentSessionId: Optional[str]
    depth: int
    kind: Literal["root", "child", "fork"]
    agentName: Optional[str]
    createdAt: str


class ChildrenPage(TypedDict):
    sessionId: str
    children: list[TreeNode]
    nextCursor: Optional[str]


class TreePage(TypedDict):
    sessionId: str
    rootSessionId: str
    depth: int
    nodes: list[TreeNode]
    nextCursor: Optional[str]


class QueuedMessageInput(TypedDict, total=False):
    id: str
    text: Optional[str]
    media: list[Json]
    sender: Optional[JsonObject]
    metadata: Optional[JsonObject]


class QueuedMessage(TypedDict):
    id: str
    mode: Literal["interrupt", "queue"]
    text: Optional[str]
    media: list[Json]
    sender: Optional[JsonObject]
    metadata: Optional[JsonObject]
    queuedAt: str


class RuntimeInterruptRequest(TypedDict):
    """A running runtime turn asked to stop by an interrupting message (InterruptRequested)."""

    runtimeSessionId: str
    turnId: str
    messageId: str
    requestedAt: str


class EnqueueResponse(TypedDict):
    messageId: str
    placement: Literal["slot", "overflow"]
    coalescedInto: Optional[str]
    depth: int
    interruptRequested: Optional[RuntimeInterruptRequest]
    position: int


DequeueResponse = TypedDict(
    "DequeueResponse",
    {"message": QueuedMessage, "from": Literal["slot", "overflow"], "depth": int, "position": int},
)


class QueueResponse(TypedDict):
    slot: Optional[QueuedMessage]
    overflow: list[QueuedMessage]
    depth: int
    revision: int
    position: int


class ResumeTarget(TypedDict):
    sessionKey: str
    sessionId: str
    reason: str
    origin: LedgerSource


class GatewayStartedResponse(TypedDict):
    cleanShutdown: bool
    resume: list[ResumeTarget]
    suspended: list[str]
    marked: list[str]
    replayed: bool
    position: int


class SessionsPage(TypedDict):
    sessions: list[LedgerEntry]
    nextCursor: Optional[str]


class StoredEvent(TypedDict):
    revision: int
    position: int
    type: str
    data: JsonObject
    metadata: JsonObject
    createdAt: str


class StreamEventsPage(TypedDict):
    streamName: str
    events: list[StoredEvent]
    nextRevision: Optional[int]


class LifecycleEvent(StoredEvent):
    streamName: str


class JobFire(TypedDict):
    name: Literal["job.fired", "job.run_reported"]
    position: int
    data: JsonObject


class RuntimeTurnResponse(TypedDict):
    sessionKey: str
    runtimeSessionId: str
    turnId: str
    provider: str
    model: str
    newSession: bool
    reason: Literal["new", "new_command", "drift", "task", "reused"]
    previousRuntimeSessionId: Optional[str]
    note: Optional[str]
    state: Literal["warm", "resumed", "cold"]
    bindingState: str
    runtimeState: str
    position: int


WorkerEvent = JsonObject
"""``{"type": "started" | "progress" | "question" | "approval_request" | "approval_resolved" | "completed" | "failed", ...}``"""
