"""Every HTTP operation the client calls: method, path and the field names it sends.

tests/test_openapi_drift.py checks each one against the service's ``/openapi.json``, and that every API route of
the document is here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping

HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]


@dataclass(frozen=True)
class Operation:
    method: HttpMethod
    path: str
    """OpenAPI path template: ``{name}`` parameters."""
    body: tuple[str, ...] | None = None
    """Top-level body fields the client sends (None: no body)."""
    nested: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Fields of nested objects (or of an array's items), by top-level body field."""
    query: tuple[str, ...] = ()
    safe_to_repeat: bool = False
    """Sending it twice has the effect of sending it once, even without an idempotency key."""
    stream: bool = False
    """Answers server-sent events, not JSON."""


SOURCE_FIELDS = (
    "platform", "chatType", "chatId", "chatName", "userId", "userName", "threadId", "chatTopic", "userIdAlt",
    "chatIdAlt", "isBot", "guildId", "parentChatId", "messageId", "roleAuthorized",
)  # fmt: skip
SHARED_STATE_DELTA_FIELDS = ("namespace", "stateId", "delta")
MESSAGE_FIELDS = ("role", "content", "name", "toolCallId", "toolCalls", "metadata")
USAGE_FIELDS = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "lastPromptTokens", "costUsd")
JOB_FIELDS = ("name", "description", "prompt", "skill", "schedule", "timeZone", "deliverTo", "origin", "model", "repeat", "enabled")
JOB_NESTED = {
    "deliverTo": ("platform", "chatId", "threadId"),
    "origin": ("platform", "chatId", "chatName", "threadId", "userId", "sessionKey"),
}
WORKER_EVENT_FIELDS = ("type", "turnId", "message", "details", "questionId", "approvalId", "decision", "remember", "output", "error")

OPERATIONS: dict[str, Operation] = {
    "health": Operation("GET", "/health", safe_to_repeat=True),
    "whoami": Operation("GET", "/v1/whoami", safe_to_repeat=True),
    "ready": Operation("GET", "/ready", safe_to_repeat=True),
    # Conversations
    "resolve_session": Operation(
        "POST",
        "/v1/sessions/resolve",
        body=("source", "forceNew", "options", "activity", "gatewayId"),
        nested={"source": SOURCE_FIELDS, "options": ("groupSessionsPerUser", "threadSessionsPerUser", "agent", "resetPolicy"), "activity": ("backgroundProcessSince",)},
        safe_to_repeat=True,
    ),
    "get_conversation": Operation("GET", "/v1/conversations/{key}", safe_to_repeat=True),
    # Sets a count: sending it twice is sending it once.
    "update_conversation": Operation("PATCH", "/v1/conversations/{key}", body=("lastPromptTokens",), safe_to_repeat=True),
    "reset_conversation": Operation("POST", "/v1/conversations/{key}/reset", body=("keepRuntime", "force", "displayName")),
    "switch_session": Operation("POST", "/v1/conversations/{key}/switch", body=("sessionId",), safe_to_repeat=True),
    "suspend_conversation": Operation("POST", "/v1/conversations/{key}/suspend", body=("reason", "keepRuntime"), safe_to_repeat=True),
    "mark_resume_pending": Operation("POST", "/v1/conversations/{key}/resume-pending", body=("reason",), safe_to_repeat=True),
    "clear_resume_pending": Operation("DELETE", "/v1/conversations/{key}/resume-pending", safe_to_repeat=True),
    "conversation_context": Operation(
        "GET", "/v1/conversations/{key}/context", query=("redactPii", "connectedPlatforms", "format"), safe_to_repeat=True
    ),
    "conversation_events": Operation(
        "GET", "/v1/conversations/{key}/events", query=("fromRevision", "limit"), safe_to_repeat=True
    ),
    # The message queue
    "enqueue": Operation(
        "POST",
        "/v1/conversations/{key}/queue",
        body=("message", "mode"),
        nested={"message": ("id", "text", "media", "sender", "metadata")},
    ),
    "next_queued": Operation("POST", "/v1/conversations/{key}/queue/next"),
    "get_queue": Operation("GET", "/v1/conversations/{key}/queue", safe_to_repeat=True),
    # Sessions: turns, transcripts, checkpoints, memory, slots
    "record_turn": Operation(
        "POST",
        "/v1/sessions/{id}/turns",
        body=("messages", "usage", "status", "lease", "strictToolResults"),
        nested={"messages": MESSAGE_FIELDS, "usage": USAGE_FIELDS},
    ),
    "start_turn": Operation("POST", "/v1/sessions/{id}/turns/start"),
    "get_session": Operation("GET", "/v1/sessions/{id}", safe_to_repeat=True),
    "destroy_session": Operation("DELETE", "/v1/sessions/{id}", query=("cascade",), safe_to_repeat=True),
    "get_transcript": Operation(
        "GET", "/v1/sessions/{id}/transcript", query=("includeDeleted", "slot"), safe_to_repeat=True
    ),
    "context_window": Operation(
        "GET", "/v1/sessions/{id}/context-window", query=("format", "maxTokens"), safe_to_repeat=True
    ),
    "rewrite_transcript": Operation(
        "PUT", "/v1/sessions/{id}/transcript", body=("messages",), nested={"messages": MESSAGE_FIELDS}
    ),
    "rewind": Operation("POST", "/v1/sessions/{id}/rewind", body=("turns",)),
    "create_checkpoint": Operation("POST", "/v1/sessions/{id}/checkpoints", body=("label",)),
    "list_checkpoints": Operation("GET", "/v1/sessions/{id}/checkpoints", query=("before", "limit"), safe_to_repeat=True),
    "rollback": Operation("POST", "/v1/sessions/{id}/rollback", body=("checkpointId",)),
    "session_state": Operation("GET", "/v1/sessions/{id}/state", query=("revision", "at"), safe_to_repeat=True),
    "session_events": Operation("GET", "/v1/sessions/{id}/events", query=("fromRevision", "limit"), safe_to_repeat=True),
    "get_memory": Operation("GET", "/v1/sessions/{id}/memory", safe_to_repeat=True),
    "set_memory": Operation("PUT", "/v1/sessions/{id}/memory/{name}", body=("value", "metadata"), safe_to_repeat=True),
    "remove_memory": Operation("DELETE", "/v1/sessions/{id}/memory/{name}"),
    "list_slots": Operation("GET", "/v1/sessions/{id}/slots", safe_to_repeat=True),
    "create_slot": Operation("POST", "/v1/sessions/{id}/slots", body=("name",)),
    "switch_slot": Operation("POST", "/v1/sessions/{id}/slots/{name}/switch", safe_to_repeat=True),
    # Session trees
    "create_child": Operation("POST", "/v1/sessions/{id}/children", body=("agentName", "metadata")),
    "fork_session": Operation("POST", "/v1/sessions/{id}/fork", body=("checkpointId", "agentName", "metadata")),
    "list_children": Operation("GET", "/v1/sessions/{id}/children", query=("limit", "cursor"), safe_to_repeat=True),
    "get_parent": Operation("GET", "/v1/sessions/{id}/parent", safe_to_repeat=True),
    "session_tree": Operation("GET", "/v1/sessions/{id}/tree", query=("limit", "cursor", "maxDepth"), safe_to_repeat=True),
    # Sessions named by external ids in a namespace, and item histories (any session's)
    "put_agent_session": Operation(
        "PUT", "/v1/namespaces/{namespace}/sessions/{externalId}", body=("agentName", "metadata"), safe_to_repeat=True
    ),
    "create_agent_session": Operation("POST", "/v1/namespaces/{namespace}/sessions", body=("agentName", "metadata")),
    "get_agent_session": Operation("GET", "/v1/namespaces/{namespace}/sessions/{externalId}", safe_to_repeat=True),
    "delete_agent_session": Operation(
        "DELETE", "/v1/namespaces/{namespace}/sessions/{externalId}", query=("cascade",), safe_to_repeat=True
    ),
    "list_agent_sessions": Operation(
        "GET",
        "/v1/namespaces/{namespace}/sessions",
        query=("limit", "cursor", "updatedAfter", "updatedBefore", "metadata"),
        safe_to_repeat=True,
    ),
    "append_items": Operation(
        "POST",
        "/v1/sessions/{id}/items",
        body=("items", "idField", "stateDelta", "sharedStateDeltas"),
        nested={"sharedStateDeltas": SHARED_STATE_DELTA_FIELDS},
    ),
    "list_items": Operation("GET", "/v1/sessions/{id}/items", query=("limit", "before", "after", "revision"), safe_to_repeat=True),
    "get_item": Operation("GET", "/v1/sessions/{id}/items/{itemId}", safe_to_repeat=True),
    "pop_item": Operation("POST", "/v1/sessions/{id}/items/pop"),
    "clear_items": Operation("DELETE", "/v1/sessions/{id}/items"),
    # Key-value states: a session's own values, and shared states of a namespace
    "get_session_values": Operation("GET", "/v1/sessions/{id}/values", safe_to_repeat=True),
    "change_session_values": Operation(
        "PATCH", "/v1/sessions/{id}/values", body=("delta", "sharedStateDeltas"), nested={"sharedStateDeltas": SHARED_STATE_DELTA_FIELDS}
    ),
    "get_shared_state": Operation("GET", "/v1/namespaces/{namespace}/states/{stateId}", safe_to_repeat=True),
    "change_shared_state": Operation("PATCH", "/v1/namespaces/{namespace}/states/{stateId}", body=("delta",)),
    # Restart recovery
    "gateway_stopping": Operation(
        "POST", "/v1/gateways/{gatewayId}/stopping", body=("activeKeys", "mode"), safe_to_repeat=True
    ),
    "gateway_stopped": Operation("POST", "/v1/gateways/{gatewayId}/stopped", body=("drainTimedOut",), safe_to_repeat=True),
    "gateway_started": Operation("POST", "/v1/gateways/{gatewayId}/started", body=("bootId", "autoContinue"), safe_to_repeat=True),
    # The whole list replaces the last one: sending it twice is sending it once.
    "gateway_platforms": Operation(
        "PUT",
        "/v1/gateways/{gatewayId}/platforms",
        body=("platforms",),
        nested={"platforms": ("platform", "displayName", "homeChannel", "piiSafe")},
        safe_to_repeat=True,
    ),
    # The sessions index (read models: these wait for the client's own writes)
    "list_sessions": Operation(
        "GET", "/v1/sessions", query=("activeMinutes", "platform", "limit", "cursor"), safe_to_repeat=True
    ),
    "session_by_key": Operation("GET", "/v1/conversations/{key}/entry", safe_to_repeat=True),
    "session_record": Operation("GET", "/v1/sessions/{id}/record", safe_to_repeat=True),
    "session_count": Operation("GET", "/v1/session-count", query=("atLeast",), safe_to_repeat=True),
    "export_sessions_json": Operation("GET", "/v1/export/sessions.json", safe_to_repeat=True),
    # Full-text search over transcripts
    "search": Operation(
        "GET",
        "/v1/search",
        query=(
            "q", "sessionKey", "sessionId", "platform", "role", "source", "since", "until", "limit", "cursor", "groupBy",
            "hitsPerSession", "includeDeleted", "includeRolledBack",
        ),  # fmt: skip
        safe_to_repeat=True,
    ),
    # Admin
    "prune": Operation("POST", "/v1/admin/prune", body=("maxAgeDays",), safe_to_repeat=True),
    "list_projections": Operation("GET", "/v1/admin/projections", safe_to_repeat=True),
    "get_projection": Operation("GET", "/v1/admin/projections/{name}", safe_to_repeat=True),
    "rebuild_projection": Operation("POST", "/v1/admin/projections/{name}/rebuild"),
    "list_streams": Operation("GET", "/v1/admin/streams", query=("category", "limit", "cursor"), safe_to_repeat=True),
    "erase_conversation": Operation("POST", "/v1/admin/erase", body=("sessionKey", "tenant"), safe_to_repeat=True),
    "apply_retention": Operation(
        "POST", "/v1/admin/retention", body=("dryRun", "contentDays", "contentDaysByPlatform", "keepCheckpoints"), safe_to_repeat=True
    ),
    # Runtime sessions (Codex / Claude Code threads bound to a conversation)
    "runtime_turn": Operation(
        "POST", "/v1/conversations/{key}/runtime/turns", body=("provider", "model", "input", "newSession")
    ),
    "runtime_new": Operation("POST", "/v1/conversations/{key}/runtime/new", body=("task", "provider", "model")),
    "runtime_detach": Operation("POST", "/v1/conversations/{key}/runtime/detach", safe_to_repeat=True),
    "get_runtime_binding": Operation("GET", "/v1/conversations/{key}/runtime", safe_to_repeat=True),
    "runtime_pending": Operation("GET", "/v1/conversations/{key}/runtime/pending", safe_to_repeat=True),
    "report_worker_event": Operation("POST", "/v1/runtime-sessions/{id}/events", body=WORKER_EVENT_FIELDS),
    "resolve_approval": Operation(
        "POST", "/v1/runtime-sessions/{id}/approvals/{approvalId}", body=("decision", "remember"), safe_to_repeat=True
    ),
    "answer_question": Operation(
        "POST", "/v1/runtime-sessions/{id}/questions/{questionId}", body=("answer",), safe_to_repeat=True
    ),
    "get_runtime_session": Operation("GET", "/v1/runtime-sessions/{id}", safe_to_repeat=True),
    # Scheduled jobs
    "create_job": Operation("POST", "/v1/jobs", body=("id", *JOB_FIELDS), nested=JOB_NESTED),
    "import_jobs": Operation("POST", "/v1/jobs/import", body=("jobs",), safe_to_repeat=True),
    "list_jobs": Operation("GET", "/v1/jobs", query=("enabled", "limit", "cursor"), safe_to_repeat=True),
    "get_job": Operation("GET", "/v1/jobs/{id}", safe_to_repeat=True),
    "update_job": Operation("PATCH", "/v1/jobs/{id}", body=JOB_FIELDS, nested=JOB_NESTED, safe_to_repeat=True),
    "delete_job": Operation("DELETE", "/v1/jobs/{id}", safe_to_repeat=True),
    "fire_job": Operation("POST", "/v1/jobs/{id}/fire", body=("slot",)),
    "report_run": Operation("POST", "/v1/jobs/{id}/runs/{fireId}", body=("status", "error"), safe_to_repeat=True),
    # Server-sent event streams
    "lifecycle_events": Operation(
        "GET", "/v1/events/stream", query=("types", "sessionKey", "fromPosition"), safe_to_repeat=True, stream=True
    ),
    "job_fires": Operation("GET", "/v1/jobs/fires/stream", query=("from",), safe_to_repeat=True, stream=True),
}
