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


class ResetPolicy(TypedDict, total=False):
    """Hermes' ``SessionResetPolicy.to_dict()``: its own snake_case names; a missing or None field takes its default."""

    mode: Literal["none", "idle", "daily", "both"]
    at_hour: int
    idle_minutes: float
    notify: bool
    notify_exclude_platforms: list[str]
    bg_process_max_age_hours: float


class ResolveOptions(TypedDict, total=False):
    groupSessionsPerUser: bool
    threadSessionsPerUser: bool
    agent: str
    resetPolicy: Optional[ResetPolicy]


class ResolveActivity(TypedDict):
    """The start (ISO 8601) of the gateway's oldest live background process for the conversation; None: none."""

    backgroundProcessSince: Optional[str]


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
    resetPolicy: Optional[ResetPolicy]


class ResolveResponse(TypedDict):
    sessionKey: str
    sessionId: str
    state: Literal["warm", "resumed", "cold"]
    created: bool
    wasAutoReset: bool
    autoResetReason: Optional[str]
    resetHadActivity: bool
    notice: Optional[str]
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


class UpdateConversationResponse(TypedDict):
    """PATCH /v1/conversations/{key}: Hermes' update_session(key, last_prompt_tokens)."""

    sessionKey: str
    sessionId: str
    changed: bool
    """False when the session held this count already (nothing written)."""
    entry: LedgerEntry
    position: int


class ConversationRuntimeEndResponse(ConversationChangeResponse):
    """A reset or a suspend: the conversation change, and what it did to the runtime binding."""

    detachedRuntimeSessionId: Optional[str]
    """The runtime session unbound, or None (none was bound, or ``keep_runtime``)."""
    interruptedTurnId: Optional[str]
    """A forced reset: the runtime turn it interrupted, or None."""


class SessionIsolation(TypedDict):
    groupSessionsPerUser: bool
    threadSessionsPerUser: bool


class ContextResponse(TypedDict):
    sessionKey: str
    sessionId: str
    redactPii: bool
    format: Literal["ledger", "hermes"]
    """``hermes``: the prompt is Hermes' ``build_session_context_prompt`` byte for byte."""
    isolation: SessionIsolation
    """The isolation the conversation was resolved with."""
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
    lease: int
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


ContextWindowFormat = Literal["openai-chat", "openai-responses", "anthropic", "gemini"]


class ContextWindowCut(TypedDict):
    messages: int
    estimatedTokens: int


class SyntheticToolResult(TypedDict):
    toolCallId: str
    reason: Literal["interrupted"]


class DroppedMessage(TypedDict):
    messageIndex: int
    toolCallId: Optional[str]
    reason: Literal["no_matching_call", "missing_tool_call_id", "malformed_tool_call", "duplicate_tool_call_id", "empty_message"]


class ContextWindowResponse(TypedDict):
    """GET /v1/sessions/{id}/context-window: ``request`` is the provider's body fragment of the shape ``format`` names."""

    sessionId: str
    format: ContextWindowFormat
    request: JsonObject
    estimatedTokens: int
    maxTokens: Optional[int]
    withinBudget: bool
    cut: ContextWindowCut
    synthetic: list[SyntheticToolResult]
    dropped: list[DroppedMessage]
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


class AutoContinuation(TypedDict):
    reason: str
    bootId: str
    interruptedText: Optional[str]


class _QueuedMessageBase(TypedDict):
    id: str
    mode: Literal["interrupt", "queue"]
    text: Optional[str]
    media: list[Json]
    sender: Optional[JsonObject]
    metadata: Optional[JsonObject]
    queuedAt: str


class QueuedMessage(_QueuedMessageBase, total=False):
    """``kind`` and ``continuation`` only on a gateway start's continuation (``auto_continue``), taken first."""

    kind: Literal["auto_continue"]
    continuation: AutoContinuation


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


class AbandonedTurnRef(TypedDict):
    sessionId: str
    turnIndex: int


class GatewayStartedResponse(TypedDict):
    cleanShutdown: bool
    resume: list[ResumeTarget]
    suspended: list[str]
    marked: list[str]
    abandonedTurns: list[AbandonedTurnRef]
    """Started turns of this gateway's sessions that the start gave up (reason ``gateway_restart``)."""
    continued: list[str]
    replayed: bool
    position: int


class HomeChannel(TypedDict):
    chatId: str
    name: str


class GatewayPlatformInput(TypedDict, total=False):
    """One platform of ``LedgerClient.gateway_platforms``: ``platform`` is required, the rest optional."""

    platform: str
    displayName: Optional[str]
    homeChannel: Optional[HomeChannel]
    """Where scheduled-job output for this platform goes by default."""
    piiSafe: bool
    """Hermes' ``pii_safe``: this platform's ids may be hashed in a redacted prompt; omitted: Hermes' default
    (whatsapp, signal, telegram, bluebubbles)."""


class GatewayPlatform(TypedDict):
    platform: str
    displayName: Optional[str]
    homeChannel: Optional[HomeChannel]
    piiSafe: bool


class GatewayPlatformsResponse(TypedDict):
    gatewayId: str
    platforms: list[GatewayPlatform]
    """As stored: sorted by platform."""
    changed: bool
    """False when the list was already the registered one: nothing was appended."""
    live: bool
    """Whether the context prompt lists this gateway's platforms now (false after a stop, until the next start)."""
    revision: int
    position: int


class SessionCountResponse(TypedDict):
    """Sessions of every status, children and forks included, counted up to ``atLeast``."""

    count: int
    atLeast: int
    reached: bool


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


class HealthResponse(TypedDict):
    status: str


class WhoamiResponse(TypedDict):
    """The request's token as the service sees it (GET /v1/whoami); tenant None: the default tenant."""

    name: str
    scope: Literal["read", "write", "admin"]
    tenant: Optional[str]


class ReadinessCheck(TypedDict, total=False):
    ok: bool
    detail: str


class ProjectionLoopState(TypedDict):
    name: str
    state: str
    lastError: Optional[str]
    consecutiveFailures: int


class ProjectionChecks(TypedDict):
    ok: bool
    states: list[ProjectionLoopState]


class _ReadyChecksRequired(TypedDict):
    eventStore: ReadinessCheck
    readModels: ReadinessCheck
    projections: ProjectionChecks


class ReadyChecks(_ReadyChecksRequired, total=False):
    eventLogHorizon: JsonObject
    """PostgreSQL only: ``ok``, ``detail`` and the transaction holding the log's readers back."""
    jobScheduler: JsonObject
    """Only with ``JOBS_SCHEDULER_URL``: ``ok``, ``timers`` (``scheduler`` or ``fallback``), ``failuresInARow``,
    ``pending`` and, while the built-in ticker stands in, ``detail``."""


class ReadyResponse(TypedDict):
    status: Literal["ready", "degraded", "not_ready"]
    checks: ReadyChecks


class TurnInFlight(TypedDict):
    turnIndex: int
    startedAt: str


class AbandonedTurn(TypedDict):
    turnIndex: int
    startedAt: str
    abandonedAt: str
    reason: Literal["timeout", "gateway_restart"]


SessionStatus = Literal["active", "ended", "destroyed"]


class SessionView(TypedDict):
    status: SessionStatus
    sessionId: str
    sessionKey: str
    origin: LedgerSource
    createdAt: str
    updatedAt: str
    endedAt: Optional[str]
    endReason: Optional[str]
    hermesEndReason: Optional[str]
    """``endReason`` as Hermes names it (``session_reset``, ``session_switch``, ``resume_pending_expired``, ...)."""
    turnCount: int
    counters: Counters
    messageCount: int
    itemCount: int
    parentSessionId: Optional[str]
    agentName: Optional[str]
    metadata: JsonObject
    forkOf: Optional["ForkOrigin"]
    currentSlot: str
    lastSummaryTurn: Optional[int]
    turnInFlight: Optional[TurnInFlight]
    lastAbandonedTurn: Optional[AbandonedTurn]
    destroyedAt: Optional[str]
    revision: int
    position: int


class DestroyResponse(TypedDict):
    sessionId: str
    destroyed: list[str]
    """Sessions this request destroyed, the subtree's first; empty when it was destroyed already."""
    position: int


class MemoryEntry(TypedDict):
    name: str
    value: Json
    metadata: JsonObject
    createdAt: str
    updatedAt: str


class MemoryPage(TypedDict):
    sessionId: str
    entries: list[MemoryEntry]
    revision: int
    position: int


class SetMemoryResponse(MemoryEntry):
    revision: int
    position: int


class RemoveMemoryResponse(TypedDict):
    name: str
    removed: bool
    revision: int
    position: int


class SlotView(TypedDict):
    name: str
    createdAt: str
    messageCount: int
    current: bool


class SlotsPage(TypedDict):
    sessionId: str
    currentSlot: str
    slots: list[SlotView]
    revision: int
    position: int


class CreateSlotResponse(TypedDict):
    name: str
    createdAt: str
    revision: int
    position: int


class SwitchSlotResponse(TypedDict):
    currentSlot: str
    previous: str
    revision: int
    position: int


class ForkOrigin(TypedDict):
    sessionId: str
    checkpointId: Optional[str]
    revision: int


class SessionTimeline(TypedDict):
    turnIndex: int
    counters: Counters
    transcript: list[TranscriptMessage]
    memory: list[MemoryEntry]
    currentSlot: str
    slots: list[SlotView]
    lastSummaryTurn: Optional[int]
    checkpointId: Optional[str]
    nextMessageIndex: int
    itemCount: int


class _SessionStateRequired(TypedDict):
    sessionId: str
    revision: int
    position: int
    status: SessionStatus
    sessionKey: str
    parentSessionId: Optional[str]
    agentName: Optional[str]
    forkOf: Optional[ForkOrigin]
    createdAt: str
    updatedAt: str
    endedAt: Optional[str]
    destroyedAt: Optional[str]
    turnInFlight: Optional[TurnInFlight]
    lastAbandonedTurn: Optional[AbandonedTurn]
    state: SessionTimeline


class SessionStateView(_SessionStateRequired, total=False):
    """A session as of a revision or a time: what a rollback to it would restore under ``state``."""

    lastEventAt: Optional[str]
    """Present when read as of a revision or a time."""


class SpawnedSession(TypedDict):
    sessionId: str
    parentSessionId: str
    kind: Literal["child", "fork"]
    revision: int
    position: int


class ChildResponse(SpawnedSession):
    agentName: str


class ForkResponse(SpawnedSession):
    forkOf: ForkOrigin
    turnIndex: int


class ParentResponse(TypedDict):
    sessionId: str
    parent: Optional[TreeNode]
    """The live parent; None for a root and for an orphan."""
    orphaned: bool


class SkippedConversation(TypedDict):
    sessionKey: str
    code: str


class GatewayStoppingResponse(TypedDict):
    gatewayId: str
    mode: Literal["restart", "shutdown"]
    marked: list[str]
    skipped: list[SkippedConversation]
    position: int


class GatewayStoppedResponse(TypedDict):
    gatewayId: str
    cleanShutdown: bool
    cleared: list[str]
    stillMarked: list[str]
    position: int


class SessionRecord(Counters):
    sessionId: str
    sessionKey: str
    status: SessionStatus
    createdAt: str
    updatedAt: str
    endedAt: Optional[str]
    endReason: Optional[str]
    origin: LedgerSource
    messageCount: int


class PruneResponse(TypedDict):
    maxAgeDays: int
    pruned: list[str]
    """Session keys forgotten; a tenant's as ``<tenant>~<key>``."""
    position: int


RuntimeStatus = Literal["starting", "running", "waiting_user", "waiting_approval", "idle", "interrupted"]
BindingStatus = Literal["unbound", "idle", "running", "waiting_user", "waiting_approval"]
ApprovalDecision = Literal["allow", "deny"]
ApprovalMemory = Literal["none", "session", "conversation"]


class RuntimeDetachResponse(TypedDict):
    sessionKey: str
    state: Literal["unbound"]
    detachedRuntimeSessionId: Optional[str]
    changed: bool
    position: int


class RuntimeFailure(TypedDict):
    kind: Literal["turn_failed", "interrupted"]
    reason: str
    message: str
    turnId: Optional[str]
    at: str


class RequestedInterrupt(TypedDict):
    turnId: str
    messageId: str
    requestedAt: str


class RuntimeBrief(TypedDict):
    state: RuntimeStatus
    currentTurnId: Optional[str]
    turnCount: int
    pendingApprovals: int
    pendingQuestions: int
    lastError: Optional[RuntimeFailure]
    interruptRequested: Optional[RequestedInterrupt]


class DriftNote(TypedDict):
    note: str
    runtimeSessionId: str
    at: str


class RuntimeBinding(TypedDict):
    sessionKey: str
    state: BindingStatus
    runtimeSessionId: Optional[str]
    provider: Optional[str]
    model: Optional[str]
    reason: Optional[Literal["new", "drift", "new_command", "task"]]
    boundAt: Optional[str]
    previousRuntimeSessionId: Optional[str]
    note: Optional[DriftNote]
    runtime: Optional[RuntimeBrief]
    revision: int
    position: int


class PendingApproval(TypedDict):
    approvalId: str
    turnId: str
    details: JsonObject
    requestedAt: str


class PendingQuestion(TypedDict):
    questionId: str
    turnId: str
    details: JsonObject
    askedAt: str


class ResolvedApproval(PendingApproval):
    decision: ApprovalDecision
    remember: ApprovalMemory
    by: Literal["worker", "user"]
    resolvedAt: str


class AnsweredQuestion(PendingQuestion):
    answer: str
    by: Literal["worker", "user"]
    answeredAt: str


class RuntimePending(TypedDict):
    sessionKey: str
    runtimeSessionId: Optional[str]
    runtimeState: Optional[RuntimeStatus]
    approvals: list[PendingApproval]
    questions: list[PendingQuestion]
    position: int


class RuntimeTurnRecord(TypedDict):
    turnId: str
    input: str
    status: Literal["in_flight", "completed", "failed", "interrupted"]
    startedAt: str
    endedAt: Optional[str]
    error: Optional[str]


class RuntimeSessionView(TypedDict):
    runtimeSessionId: str
    provider: str
    model: str
    state: RuntimeStatus
    sessionKey: str
    boundConversations: list[str]
    createdAt: str
    updatedAt: str
    lastWorkerEventAt: Optional[str]
    currentTurnId: Optional[str]
    turnCount: int
    turns: list[RuntimeTurnRecord]
    lastError: Optional[RuntimeFailure]
    interruptRequested: Optional[RequestedInterrupt]
    pendingApprovals: list[PendingApproval]
    pendingQuestions: list[PendingQuestion]
    resolvedApprovals: list[ResolvedApproval]
    answeredQuestions: list[AnsweredQuestion]
    revision: int
    position: int


class WorkerEventResponse(TypedDict):
    runtimeSessionId: str
    state: RuntimeStatus
    currentTurnId: Optional[str]
    interruptRequested: Optional[RequestedInterrupt]
    """A worker that reports learns here that its turn was asked to stop."""
    changed: bool
    revision: int
    position: int


class ApprovalAnswerResponse(TypedDict):
    runtimeSessionId: str
    approvalId: str
    decision: ApprovalDecision
    remember: ApprovalMemory
    state: RuntimeStatus
    changed: bool
    revision: int
    position: int


class QuestionAnswerResponse(TypedDict):
    runtimeSessionId: str
    questionId: str
    state: RuntimeStatus
    changed: bool
    revision: int
    position: int


class DeliveryTarget(TypedDict):
    platform: str
    chatId: str
    threadId: Optional[str]


class JobRepeat(TypedDict):
    times: Optional[int]
    completed: int


class JobView(TypedDict):
    id: str
    name: str
    description: Optional[str]
    prompt: Optional[str]
    skill: Optional[str]
    schedule: str
    """As text that parses back to it: a cron expression, ``every 30m``, or a one-shot's instant."""
    scheduleKind: Literal["cron", "interval", "once"]
    scheduleDefinition: JsonObject
    timeZone: str
    deliverTo: Optional[DeliveryTarget]
    origin: Optional[JsonObject]
    model: Optional[str]
    repeat: JobRepeat
    enabled: bool
    state: Literal["scheduled", "paused", "completed", "removed"]
    nextRunAt: Optional[str]
    lastRunAt: Optional[str]
    lastSlot: Optional[str]
    lastStatus: Optional[Literal["ok", "error", "skipped"]]
    lastError: Optional[str]
    createdAt: str
    updatedAt: str


class JobWritten(JobView):
    revision: int
    position: int


class JobFireRecord(TypedDict):
    fireId: str
    slot: str
    trigger: Literal["ticker", "external"]
    firedAt: str
    status: Literal["ok", "error", "skipped", "pending"]
    error: Optional[str]
    reportedAt: Optional[str]


class JobDetail(JobWritten):
    recentFires: list[JobFireRecord]
    """Newest first."""


class UpdateJobResponse(JobWritten):
    changed: bool


class JobsPage(TypedDict):
    jobs: list[JobView]
    nextCursor: Optional[str]


class ImportJobsResponse(TypedDict):
    created: list[JobView]
    existing: list[str]
    position: int


class DeleteJobResponse(TypedDict):
    id: str
    removed: bool
    revision: int
    position: int


class JobTask(TypedDict):
    name: str
    description: Optional[str]
    prompt: Optional[str]
    skill: Optional[str]
    deliverTo: Optional[DeliveryTarget]
    origin: Optional[JsonObject]
    model: Optional[str]


class FireJobResponse(TypedDict):
    jobId: str
    fireId: str
    slot: str
    skippedSlots: int
    nextRunAt: Optional[str]
    completed: bool
    task: JobTask
    delivery: Optional[dict[str, Any]]
    """Where the output goes, resolved at the fire (``platform``, ``chatId``, ``threadId``, ``from``: ``deliverTo``,
    ``origin`` or ``home_channel``); None: nowhere known."""
    position: int


class ReportRunResponse(TypedDict):
    jobId: str
    fire: JobFireRecord
    changed: bool
    job: JobView
    revision: int
    position: int


class ParkedStream(TypedDict):
    streamName: str
    firstPosition: int
    lastPosition: int
    skippedEvents: int
    error: str
    parkedAt: str


class ProjectionStatus(TypedDict):
    name: str
    position: int
    headPosition: int
    lagEvents: int
    state: str
    ownedHere: bool
    lastError: Optional[str]
    failedPosition: Optional[int]
    consecutiveFailures: int
    failingSince: Optional[str]
    parkedStreams: list[ParkedStream]
    updatedAt: str


class ProjectionsResponse(TypedDict):
    projections: list[ProjectionStatus]


class StreamIndexEntry(TypedDict):
    streamName: str
    category: str
    revision: int
    eventCount: int
    lastPosition: int
    lastEventType: str
    firstEventAt: str
    lastEventAt: str


class StreamsPage(TypedDict):
    streams: list[StreamIndexEntry]
    nextCursor: Optional[int]


class EraseResponse(TypedDict):
    erasureId: str
    tenant: Optional[str]
    streams: list[str]
    eventsRead: int
    eventsRewritten: int
    streamsRenamed: int
    sessionsDestroyed: int
    jobsRemoved: int
    storedAnswersRemoved: int
    projectionsRebuilt: list[str]
    position: int


class RetentionPolicy(TypedDict):
    contentDays: Optional[int]
    contentDaysByPlatform: dict[str, Optional[int]]
    keepCheckpoints: Optional[int]


class ExpiredContent(TypedDict):
    sessionId: str
    tenant: Optional[str]
    platform: str
    cutoff: str
    eventsRewritten: int
    messagesExpired: int
    itemsExpired: int


class RetentionContent(TypedDict):
    sessions: list[ExpiredContent]
    sessionsExpired: int
    eventsRewritten: int
    messagesExpired: int
    itemsExpired: int
    truncated: bool


class ExpiredCheckpoints(TypedDict):
    sessionId: str
    tenant: Optional[str]
    checkpointIds: list[str]


class RetentionCheckpoints(TypedDict):
    sessions: list[ExpiredCheckpoints]
    checkpointSessions: int
    checkpointsExpired: int
    truncated: bool


class RetentionResponse(TypedDict):
    retentionId: Optional[str]
    dryRun: bool
    at: str
    policy: RetentionPolicy
    content: RetentionContent
    checkpoints: RetentionCheckpoints
    projectionsRepaired: list[str]
    position: int


class SnippetPart(TypedDict):
    text: str
    match: bool


class SearchHit(TypedDict):
    sessionId: str
    sessionKey: str
    platform: str
    turnIndex: Optional[int]
    messageIndex: int
    slot: Optional[str]
    itemId: Optional[str]
    role: str
    at: str
    snippet: str
    snippetParts: list[SnippetPart]
    rank: float
    deleted: bool
    rolledBack: bool
    sessionDestroyed: bool


class SearchHitsPage(TypedDict):
    query: str
    hits: list[SearchHit]
    nextCursor: Optional[str]


class SessionSearchHits(TypedDict):
    sessionId: str
    sessionKey: str
    platform: str
    rank: float
    hitCount: int
    lastAt: str
    hits: list[SearchHit]


class SearchSessionsPage(TypedDict):
    query: str
    sessions: list[SessionSearchHits]
    nextCursor: Optional[str]


# Sessions named by external ids, and item histories (docs/agent-sessions.md)


class AgentSession(TypedDict):
    sessionId: str
    namespace: str
    externalId: str
    agentName: Optional[str]
    metadata: JsonObject
    status: Literal["active", "ended", "destroyed"]
    itemCount: int
    createdAt: str
    updatedAt: str
    revision: int
    position: int


class CreatedAgentSession(AgentSession):
    created: bool
    """Whether this request created it (201); False when it existed (200)."""


class AgentSessionListing(TypedDict):
    sessionId: str
    namespace: str
    externalId: str
    agentName: Optional[str]
    metadata: JsonObject
    status: Literal["active", "ended", "destroyed"]
    itemCount: int
    createdAt: str
    updatedAt: str


class AgentSessionsPage(TypedDict):
    sessions: list[AgentSessionListing]
    nextCursor: Optional[str]


class AppendedItem(TypedDict):
    id: str
    index: Optional[int]
    appended: bool
    """False: the history held an item of this id already, and nothing was written for it."""


class SharedStateDelta(TypedDict):
    namespace: str
    stateId: str
    delta: JsonObject
    """Each key takes its value (None is a value)."""


class SharedState(TypedDict):
    namespace: str
    stateId: str
    state: JsonObject
    updatedAt: Optional[str]
    """None for a state nothing was ever written to (its revision is -1)."""
    revision: int
    position: int


class SessionValues(TypedDict):
    sessionId: str
    state: JsonObject
    updatedAt: Optional[str]
    revision: int
    """The session's revision (what If-Match names)."""
    stateRevision: int
    """The values' own stream revision (-1: never written)."""
    position: int


class AppendItemsResponse(TypedDict):
    sessionId: str
    items: list[AppendedItem]
    itemCount: int
    revision: int
    position: int


class HistoryItem(TypedDict):
    id: str
    index: int
    item: JsonObject
    at: str


class ItemsPage(TypedDict):
    sessionId: str
    items: list[HistoryItem]
    """Oldest first."""
    itemCount: int
    hasMore: bool
    """Older items exist (no cursor, or ``before``); newer ones (``after``)."""
    status: str
    """``active``, ``ended`` or ``destroyed`` (a destroyed session's history is read for audit, never written)."""
    revision: int
    position: int


class ItemResponse(TypedDict):
    sessionId: str
    item: HistoryItem
    itemCount: int
    revision: int
    position: int


class PopItemResponse(TypedDict):
    sessionId: str
    item: Optional[HistoryItem]
    itemCount: int
    revision: int
    position: int


class ClearItemsResponse(TypedDict):
    sessionId: str
    clearedCount: int
    itemCount: int
    revision: int
    position: int
