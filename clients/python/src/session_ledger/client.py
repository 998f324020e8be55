"""The Session Ledger client: one method per operation, retries where they are safe, read-your-writes, event streams.

Bodies and answers use the service's own field names (camelCase, as in ``docs/api.md``); arguments are Python's.
Every write carries a fresh ``Idempotency-Key`` (kept across the call's own retries), so a write whose answer was
lost can be sent again without being carried out twice.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence, Union, cast

from . import api_types as api
from .event_stream import reconnecting_events
from .retry_policy import RetryOptions
from .source import SessionSource
from .transport import Exchange, Transport


def _present(**fields: Any) -> dict[str, Any]:
    """A body of the fields that were given (None: leave the service's default)."""
    return {name: value for name, value in fields.items() if value is not None}


class LedgerClient:
    """A client of one Session Ledger service.

    ``LedgerClient("http://127.0.0.1:3000", token=os.environ.get("LEDGER_TOKEN"))``. It is safe to share between
    threads. ``retry`` tunes the backoff; ``read_your_writes=False`` stops sending the client's last written
    position with queries; ``idempotency_keys=False`` stops sending keys (writes are then retried after a lost
    answer only where repeating them is harmless, as without keys).
    """

    def __init__(
        self,
        url: str,
        token: Optional[str] = None,
        *,
        retry: Optional[RetryOptions] = None,
        timeout: float = 30.0,
        read_your_writes: bool = True,
        idempotency_keys: bool = True,
        on_retry: Optional[Callable[[str, int, BaseException], None]] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._transport = Transport(
            url,
            token,
            retry=retry,
            timeout=timeout,
            read_your_writes=read_your_writes,
            idempotency_keys=idempotency_keys,
            on_retry=on_retry,
            sleep=sleep,
        )

    @property
    def url(self) -> str:
        return self._transport.base_url

    @property
    def position(self) -> int:
        """The highest global position this client's commands wrote (0 before any)."""
        return self._transport.position

    def observe_position(self, position: int) -> None:
        """Adopts a position written elsewhere (another process, a previous run) for read-your-writes."""
        self._transport.observe_position(position)

    @property
    def last_exchange(self) -> Optional[Exchange]:
        """Status, request id, idempotency key, replay flag and attempts of this thread's last call."""
        return self._transport.last_exchange

    def _call(self, name: str, params: Optional[Mapping[str, str]] = None, **options: Any) -> Any:
        return self._transport.call(name, params, **options)

    # Service
    def health(self) -> api.HealthResponse:
        return cast(api.HealthResponse, self._call("health"))

    def ready(self) -> api.ReadyResponse:
        """Readiness and its checks. A service that is not ready answers 503, raised as a ``LedgerError`` whose
        ``details`` is the answer with its checks."""
        return cast(api.ReadyResponse, self._call("ready"))

    def whoami(self) -> api.WhoamiResponse:
        """The token's name, scope and tenant, as the service sees it."""
        return cast(api.WhoamiResponse, self._call("whoami"))

    # Conversations
    def resolve_session(
        self,
        source: Any,
        *,
        force_new: bool = False,
        options: Optional[api.ResolveOptions] = None,
        gateway_id: Optional[str] = None,
        activity: Optional[api.ResolveActivity] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.ResolveResponse:
        """Gets or creates the session for a message's source (race-free: one session per conversation).

        ``source`` is a :class:`SessionSource`, Hermes' own ``SessionSource`` or anything with its attribute names
        (its ``profile`` becomes ``options.agent``), or the service's own ``source`` object. ``activity`` reports the gateway's oldest live background process, which
        keeps a reset policy from resetting the conversation (docs/reset-policies.md).
        """
        resolve_options: dict[str, Any] = dict(options or {})
        if not isinstance(source, Mapping):
            source = SessionSource.coerce(source)
        if isinstance(source, SessionSource):
            if source.agent is not None:
                resolve_options.setdefault("agent", source.agent)
            wire: Mapping[str, Any] = source.to_ledger()
        else:
            wire = source
        body = _present(source=wire, forceNew=force_new or None, options=resolve_options or None, activity=activity, gatewayId=gateway_id)
        return cast(api.ResolveResponse, self._call("resolve_session", body=body, idempotency_key=idempotency_key))

    def get_conversation(self, session_key: str, *, min_position: Optional[int] = None) -> api.ConversationResponse:
        return cast(api.ConversationResponse, self._call("get_conversation", {"key": session_key}, min_position=min_position))

    def update_conversation(
        self, session_key: str, *, last_prompt_tokens: int, idempotency_key: Optional[str] = None
    ) -> api.UpdateConversationResponse:
        """Hermes' ``update_session(key, last_prompt_tokens)``: the current session's prompt size, set without a turn
        (``changed`` is False when it held that count already)."""
        return cast(
            api.UpdateConversationResponse,
            self._call(
                "update_conversation", {"key": session_key}, body={"lastPromptTokens": last_prompt_tokens}, idempotency_key=idempotency_key
            ),
        )

    def reset_conversation(
        self,
        session_key: str,
        *,
        keep_runtime: Optional[bool] = None,
        force: Optional[bool] = None,
        display_name: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.ConversationRuntimeEndResponse:
        """``/new``: a new session for the conversation; the old one ends, and so does its runtime binding unless
        ``keep_runtime`` (a runtime turn in flight answers 409 RUNTIME_BUSY unless ``force`` interrupts it).
        ``display_name`` renames the conversation from now on (kept when None)."""
        body = _present(keepRuntime=keep_runtime, force=force, displayName=display_name)
        return cast(
            api.ConversationRuntimeEndResponse,
            self._call("reset_conversation", {"key": session_key}, body=body, idempotency_key=idempotency_key),
        )

    def switch_session(
        self, session_key: str, session_id: str, *, idempotency_key: Optional[str] = None
    ) -> api.ConversationChangeResponse:
        """``/resume <id>``: points the conversation at an earlier session of its own."""
        body = {"sessionId": session_id}
        return cast(
            api.ConversationChangeResponse,
            self._call("switch_session", {"key": session_key}, body=body, idempotency_key=idempotency_key),
        )

    def suspend_conversation(
        self,
        session_key: str,
        reason: Optional[str] = None,
        *,
        keep_runtime: Optional[bool] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.ConversationRuntimeEndResponse:
        """``/stop``: the next resolve starts a new session; the runtime binding ends unless ``keep_runtime``."""
        body = _present(reason=reason, keepRuntime=keep_runtime)
        return cast(
            api.ConversationRuntimeEndResponse,
            self._call("suspend_conversation", {"key": session_key}, body=body, idempotency_key=idempotency_key),
        )

    def mark_resume_pending(
        self, session_key: str, reason: api.ResumeReason, *, idempotency_key: Optional[str] = None
    ) -> api.ConversationChangeResponse:
        return cast(
            api.ConversationChangeResponse,
            self._call("mark_resume_pending", {"key": session_key}, body={"reason": reason}, idempotency_key=idempotency_key),
        )

    def clear_resume_pending(self, session_key: str, *, idempotency_key: Optional[str] = None) -> api.ConversationChangeResponse:
        return cast(
            api.ConversationChangeResponse,
            self._call("clear_resume_pending", {"key": session_key}, idempotency_key=idempotency_key),
        )

    def conversation_context(
        self,
        session_key: str,
        *,
        redact_pii: Optional[bool] = None,
        connected_platforms: Optional[Sequence[str]] = None,
        format: Optional[str] = None,
        min_position: Optional[int] = None,
    ) -> api.ContextResponse:
        """The "Current Session Context" prompt block of the conversation; ``format="hermes"`` gives Hermes' own bytes."""
        query = {
            "redactPii": redact_pii,
            "connectedPlatforms": list(connected_platforms) if connected_platforms else None,
            "format": format,
        }
        return cast(
            api.ContextResponse,
            self._call("conversation_context", {"key": session_key}, query=query, min_position=min_position),
        )

    def conversation_events(
        self, session_key: str, *, from_revision: Optional[int] = None, limit: Optional[int] = None
    ) -> api.StreamEventsPage:
        """The conversation stream's events, oldest first (``nextRevision`` pages on)."""
        query = {"fromRevision": from_revision, "limit": limit}
        return cast(api.StreamEventsPage, self._call("conversation_events", {"key": session_key}, query=query))

    # The message queue
    def enqueue(
        self,
        session_key: str,
        message: api.QueuedMessageInput,
        *,
        mode: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.EnqueueResponse:
        """``mode="queue"`` (the service's default): its own turn, FIFO; ``"interrupt"``: a follow-up while the agent
        is busy, also its own turn in arrival order, except that media join the follow-up waiting (the service's
        ``QUEUE_FOLLOW_UPS``). A message id already waiting is not queued again."""
        body = _present(message=message, mode=mode)
        return cast(api.EnqueueResponse, self._call("enqueue", {"key": session_key}, body=body, idempotency_key=idempotency_key))

    def next_queued(self, session_key: str, *, idempotency_key: Optional[str] = None) -> Optional[api.DequeueResponse]:
        """The next waiting message (each is delivered once), or None when the queue is empty."""
        return cast(Optional[api.DequeueResponse], self._call("next_queued", {"key": session_key}, idempotency_key=idempotency_key))

    def get_queue(self, session_key: str, *, min_position: Optional[int] = None) -> api.QueueResponse:
        return cast(api.QueueResponse, self._call("get_queue", {"key": session_key}, min_position=min_position))

    # Turns and transcripts
    def record_turn(
        self,
        session_id: str,
        messages: Sequence[api.Message],
        *,
        usage: Optional[api.TurnUsage] = None,
        status: Optional[api.TurnStatus] = None,
        lease: Optional[int] = None,
        strict_tool_results: Optional[bool] = None,
        if_match: Optional[int] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.RecordTurnResponse:
        """Records a turn. ``lease`` (from :meth:`start_turn`) refuses it with 409 LEASE_LOST once that turn was given
        up; ``if_match`` (a read's ``revision``) refuses it with 412 PRECONDITION_FAILED once the session moved on;
        ``strict_tool_results`` refuses it with 400 TOOL_RESULT_MISMATCH when its tool results do not match calls."""
        body = _present(messages=list(messages), usage=usage, status=status, lease=lease, strictToolResults=strict_tool_results)
        return cast(
            api.RecordTurnResponse,
            self._call("record_turn", {"id": session_id}, body=body, idempotency_key=idempotency_key, if_match=if_match),
        )

    def start_turn(self, session_id: str, *, if_match: Optional[int] = None, idempotency_key: Optional[str] = None) -> api.StartTurnResponse:
        """Marks a turn in flight (rollback answers 409 TURN_IN_FLIGHT until :meth:`record_turn` records it); its
        ``lease`` is the fencing token to record it with."""
        return cast(api.StartTurnResponse, self._call("start_turn", {"id": session_id}, idempotency_key=idempotency_key, if_match=if_match))

    def get_session(self, session_id: str, *, min_position: Optional[int] = None) -> api.SessionView:
        return cast(api.SessionView, self._call("get_session", {"id": session_id}, min_position=min_position))

    def destroy_session(
        self, session_id: str, *, cascade: Optional[bool] = None, idempotency_key: Optional[str] = None
    ) -> api.DestroyResponse:
        query = {"cascade": cascade}
        return cast(api.DestroyResponse, self._call("destroy_session", {"id": session_id}, query=query, idempotency_key=idempotency_key))

    def get_transcript(
        self,
        session_id: str,
        *,
        include_deleted: Optional[bool] = None,
        slot: Optional[str] = None,
        min_position: Optional[int] = None,
    ) -> api.TranscriptResponse:
        query = {"includeDeleted": include_deleted, "slot": slot}
        return cast(
            api.TranscriptResponse,
            self._call("get_transcript", {"id": session_id}, query=query, min_position=min_position),
        )

    def context_window(
        self, session_id: str, format: api.ContextWindowFormat, *, max_tokens: Optional[int] = None
    ) -> api.ContextWindowResponse:
        """The live transcript as one provider's request body, every tool call answered; ``max_tokens`` cuts the oldest turns."""
        query = {"format": format, "maxTokens": max_tokens}
        return cast(api.ContextWindowResponse, self._call("context_window", {"id": session_id}, query=query))

    def rewrite_transcript(
        self, session_id: str, messages: Sequence[api.Message], *, idempotency_key: Optional[str] = None
    ) -> api.RewriteResponse:
        """Compression: the live messages become deleted in history, these are the transcript now."""
        body = {"messages": list(messages)}
        return cast(api.RewriteResponse, self._call("rewrite_transcript", {"id": session_id}, body=body, idempotency_key=idempotency_key))

    def rewind(self, session_id: str, turns: int = 1, *, idempotency_key: Optional[str] = None) -> api.RewindResponse:
        """Soft-deletes the last ``turns`` user turns and everything after them."""
        return cast(api.RewindResponse, self._call("rewind", {"id": session_id}, body={"turns": turns}, idempotency_key=idempotency_key))

    # Checkpoints, time travel, memory, slots
    def create_checkpoint(
        self, session_id: str, label: Optional[str] = None, *, idempotency_key: Optional[str] = None
    ) -> api.CheckpointResponse:
        return cast(
            api.CheckpointResponse,
            self._call("create_checkpoint", {"id": session_id}, body=_present(label=label), idempotency_key=idempotency_key),
        )

    def list_checkpoints(
        self, session_id: str, *, before: Optional[int] = None, limit: Optional[int] = None
    ) -> api.CheckpointsPage:
        """Newest first, on or off the current timeline."""
        query = {"before": before, "limit": limit}
        return cast(api.CheckpointsPage, self._call("list_checkpoints", {"id": session_id}, query=query))

    def rollback(self, session_id: str, checkpoint_id: str, *, idempotency_key: Optional[str] = None) -> api.RollbackResponse:
        """Back (or forward) to a checkpoint: appends ``RolledBack``; history is never rewritten."""
        body = {"checkpointId": checkpoint_id}
        return cast(api.RollbackResponse, self._call("rollback", {"id": session_id}, body=body, idempotency_key=idempotency_key))

    def session_state(self, session_id: str, *, revision: Optional[int] = None, at: Optional[str] = None) -> api.SessionStateView:
        """The session's state now, or replayed to a revision or an ISO time."""
        return cast(api.SessionStateView, self._call("session_state", {"id": session_id}, query={"revision": revision, "at": at}))

    def session_events(
        self, session_id: str, *, from_revision: Optional[int] = None, limit: Optional[int] = None
    ) -> api.StreamEventsPage:
        """The session stream's events, oldest first (``nextRevision`` pages on)."""
        query = {"fromRevision": from_revision, "limit": limit}
        return cast(api.StreamEventsPage, self._call("session_events", {"id": session_id}, query=query))

    def get_memory(self, session_id: str) -> api.MemoryPage:
        return cast(api.MemoryPage, self._call("get_memory", {"id": session_id}))

    def set_memory(
        self,
        session_id: str,
        name: str,
        value: api.Json,
        *,
        metadata: Optional[api.JsonObject] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.SetMemoryResponse:
        body = {"value": value, **_present(metadata=metadata)}
        params = {"id": session_id, "name": name}
        return cast(api.SetMemoryResponse, self._call("set_memory", params, body=body, idempotency_key=idempotency_key))

    def remove_memory(self, session_id: str, name: str, *, idempotency_key: Optional[str] = None) -> api.RemoveMemoryResponse:
        return cast(api.RemoveMemoryResponse, self._call("remove_memory", {"id": session_id, "name": name}, idempotency_key=idempotency_key))

    def list_slots(self, session_id: str) -> api.SlotsPage:
        return cast(api.SlotsPage, self._call("list_slots", {"id": session_id}))

    def create_slot(self, session_id: str, name: str, *, idempotency_key: Optional[str] = None) -> api.CreateSlotResponse:
        return cast(api.CreateSlotResponse, self._call("create_slot", {"id": session_id}, body={"name": name}, idempotency_key=idempotency_key))

    def switch_slot(self, session_id: str, name: str, *, idempotency_key: Optional[str] = None) -> api.SwitchSlotResponse:
        return cast(api.SwitchSlotResponse, self._call("switch_slot", {"id": session_id, "name": name}, idempotency_key=idempotency_key))

    # Session trees
    def create_child(
        self,
        session_id: str,
        agent_name: str,
        *,
        metadata: Optional[api.JsonObject] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.ChildResponse:
        """An empty child session with the parent's key and origin (a sub-agent's)."""
        body = _present(agentName=agent_name, metadata=metadata)
        return cast(api.ChildResponse, self._call("create_child", {"id": session_id}, body=body, idempotency_key=idempotency_key))

    def fork_session(
        self,
        session_id: str,
        *,
        checkpoint_id: Optional[str] = None,
        agent_name: Optional[str] = None,
        metadata: Optional[api.JsonObject] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.ForkResponse:
        """A child starting from the parent's state at a checkpoint (omitted: now)."""
        body = _present(checkpointId=checkpoint_id, agentName=agent_name, metadata=metadata)
        return cast(api.ForkResponse, self._call("fork_session", {"id": session_id}, body=body, idempotency_key=idempotency_key))

    def list_children(
        self,
        session_id: str,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        min_position: Optional[int] = None,
    ) -> api.ChildrenPage:
        query = {"limit": limit, "cursor": cursor}
        return cast(api.ChildrenPage, self._call("list_children", {"id": session_id}, query=query, min_position=min_position))

    def get_parent(self, session_id: str, *, min_position: Optional[int] = None) -> api.ParentResponse:
        return cast(api.ParentResponse, self._call("get_parent", {"id": session_id}, min_position=min_position))

    def session_tree(
        self,
        session_id: str,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        max_depth: Optional[int] = None,
        min_position: Optional[int] = None,
    ) -> api.TreePage:
        query = {"limit": limit, "cursor": cursor, "maxDepth": max_depth}
        return cast(api.TreePage, self._call("session_tree", {"id": session_id}, query=query, min_position=min_position))

    # Sessions named by external ids in a namespace
    def put_agent_session(
        self,
        namespace: str,
        external_id: str,
        *,
        agent_name: Optional[str] = None,
        metadata: Optional[api.JsonObject] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.CreatedAgentSession:
        """The session of that id, created by this call when there was none (``created``); race-free."""
        body = _present(agentName=agent_name, metadata=metadata)
        params = {"namespace": namespace, "externalId": external_id}
        return cast(api.CreatedAgentSession, self._call("put_agent_session", params, body=body, idempotency_key=idempotency_key))

    def create_agent_session(
        self,
        namespace: str,
        *,
        agent_name: Optional[str] = None,
        metadata: Optional[api.JsonObject] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.CreatedAgentSession:
        """A new session under an external id the service chooses (a UUID; a keyed retry gets the same one)."""
        body = _present(agentName=agent_name, metadata=metadata)
        return cast(api.CreatedAgentSession, self._call("create_agent_session", {"namespace": namespace}, body=body, idempotency_key=idempotency_key))

    def get_agent_session(self, namespace: str, external_id: str) -> api.AgentSession:
        return cast(api.AgentSession, self._call("get_agent_session", {"namespace": namespace, "externalId": external_id}))

    def delete_agent_session(
        self, namespace: str, external_id: str, *, cascade: Optional[bool] = None, idempotency_key: Optional[str] = None
    ) -> api.DestroyResponse:
        params = {"namespace": namespace, "externalId": external_id}
        query = {"cascade": cascade}
        return cast(api.DestroyResponse, self._call("delete_agent_session", params, query=query, idempotency_key=idempotency_key))

    def list_agent_sessions(
        self,
        namespace: str,
        *,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        updated_after: Optional[str] = None,
        updated_before: Optional[str] = None,
        metadata: Optional[api.JsonObject] = None,
        min_position: Optional[int] = None,
    ) -> api.AgentSessionsPage:
        """Most recently changed first; ``metadata``: only sessions whose metadata contains it."""
        query = {
            "limit": limit,
            "cursor": cursor,
            "updatedAfter": updated_after,
            "updatedBefore": updated_before,
            "metadata": None if metadata is None else json.dumps(metadata, separators=(",", ":")),
        }
        return cast(api.AgentSessionsPage, self._call("list_agent_sessions", {"namespace": namespace}, query=query, min_position=min_position))

    # Item histories (any session's)
    def append_items(
        self,
        session_id: str,
        items: Sequence[api.JsonObject],
        *,
        id_field: Optional[str] = "id",
        state_delta: Optional[api.JsonObject] = None,
        shared_state_deltas: Optional[Sequence[api.SharedStateDelta]] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.AppendItemsResponse:
        """Appends in order; an item whose id (its ``id_field`` member; None: no item has one) the history holds is
        not written again. ``state_delta`` (the session's values) and ``shared_state_deltas`` change in the same
        append, and only when an item is appended."""
        body: dict[str, Any] = {"items": list(items), "idField": id_field}
        body.update(_present(stateDelta=state_delta, sharedStateDeltas=None if shared_state_deltas is None else list(shared_state_deltas)))
        return cast(api.AppendItemsResponse, self._call("append_items", {"id": session_id}, body=body, idempotency_key=idempotency_key))

    def list_items(
        self,
        session_id: str,
        *,
        limit: Optional[int] = None,
        before: Optional[str] = None,
        after: Optional[str] = None,
        revision: Optional[int] = None,
    ) -> api.ItemsPage:
        """The newest ``limit`` items oldest first, or those just ``before`` / ``after`` an item id; with ``revision``,
        the history as it was at that revision of the session's stream."""
        query = {"limit": limit, "before": before, "after": after, "revision": revision}
        return cast(api.ItemsPage, self._call("list_items", {"id": session_id}, query=query))

    def get_item(self, session_id: str, item_id: str) -> api.ItemResponse:
        """One item by its id (``404 ITEM_NOT_FOUND`` when the history does not hold it)."""
        return cast(api.ItemResponse, self._call("get_item", {"id": session_id, "itemId": item_id}))

    def pop_item(self, session_id: str, *, idempotency_key: Optional[str] = None) -> api.PopItemResponse:
        return cast(api.PopItemResponse, self._call("pop_item", {"id": session_id}, idempotency_key=idempotency_key))

    def clear_items(self, session_id: str, *, idempotency_key: Optional[str] = None) -> api.ClearItemsResponse:
        return cast(api.ClearItemsResponse, self._call("clear_items", {"id": session_id}, idempotency_key=idempotency_key))

    # Key-value states
    def get_session_values(self, session_id: str) -> api.SessionValues:
        """The session's own values (``revision`` is the session's: what ``if_match`` names)."""
        return cast(api.SessionValues, self._call("get_session_values", {"id": session_id}))

    def change_session_values(
        self,
        session_id: str,
        delta: api.JsonObject,
        *,
        shared_state_deltas: Optional[Sequence[api.SharedStateDelta]] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.SessionValues:
        """Each key of ``delta`` takes its value (None is a value); shared states change in the same append."""
        body = {"delta": delta, **_present(sharedStateDeltas=None if shared_state_deltas is None else list(shared_state_deltas))}
        return cast(api.SessionValues, self._call("change_session_values", {"id": session_id}, body=body, idempotency_key=idempotency_key))

    def get_shared_state(self, namespace: str, state_id: str) -> api.SharedState:
        """A shared state (an app's, a user's); one nothing was written to answers an empty ``state``."""
        return cast(api.SharedState, self._call("get_shared_state", {"namespace": namespace, "stateId": state_id}))

    def change_shared_state(
        self, namespace: str, state_id: str, delta: api.JsonObject, *, idempotency_key: Optional[str] = None
    ) -> api.SharedState:
        params = {"namespace": namespace, "stateId": state_id}
        return cast(api.SharedState, self._call("change_shared_state", params, body={"delta": delta}, idempotency_key=idempotency_key))

    # Restart recovery
    def gateway_stopping(
        self,
        gateway_id: str,
        active_keys: Optional[Sequence[str]] = None,
        *,
        mode: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.GatewayStoppingResponse:
        """The drain begins: conversations with a turn in flight are marked for resume."""
        body = _present(activeKeys=list(active_keys) if active_keys is not None else None, mode=mode)
        return cast(api.GatewayStoppingResponse, self._call("gateway_stopping", {"gatewayId": gateway_id}, body=body, idempotency_key=idempotency_key))

    def gateway_stopped(
        self, gateway_id: str, drain_timed_out: Optional[Sequence[str]] = None, *, idempotency_key: Optional[str] = None
    ) -> api.GatewayStoppedResponse:
        """With nothing timed out, the clean-shutdown marker."""
        body = _present(drainTimedOut=list(drain_timed_out) if drain_timed_out is not None else None)
        return cast(api.GatewayStoppedResponse, self._call("gateway_stopped", {"gatewayId": gateway_id}, body=body, idempotency_key=idempotency_key))

    def gateway_started(
        self,
        gateway_id: str,
        boot_id: str,
        *,
        auto_continue: Optional[bool] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.GatewayStartedResponse:
        """After an unclean stop, marks recently active conversations and answers what to resume. ``auto_continue``
        queues a continuation (kind ``auto_continue``) at the head of each one's queue, once per boot; omitted, the
        server's AUTO_CONTINUE decides."""
        body = _present(bootId=boot_id, autoContinue=auto_continue)
        return cast(
            api.GatewayStartedResponse,
            self._call("gateway_started", {"gatewayId": gateway_id}, body=body, idempotency_key=idempotency_key),
        )

    def gateway_platforms(
        self, gateway_id: str, platforms: Sequence[api.GatewayPlatformInput], *, idempotency_key: Optional[str] = None
    ) -> api.GatewayPlatformsResponse:
        """Registers the gateway's whole platform list (display names, home channels, whether ids may be hashed: ``piiSafe``) for the context
        prompt; the same list again appends nothing (``changed`` false)."""
        body = {"platforms": [dict(platform) for platform in platforms]}
        return cast(
            api.GatewayPlatformsResponse,
            self._call("gateway_platforms", {"gatewayId": gateway_id}, body=body, idempotency_key=idempotency_key),
        )

    # The sessions index (read models: these wait for this client's own writes)
    def list_sessions(
        self,
        *,
        active_minutes: Optional[int] = None,
        platform: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        min_position: Optional[int] = None,
    ) -> api.SessionsPage:
        """Routing entries, most recent activity first (``nextCursor`` pages on)."""
        query = {"activeMinutes": active_minutes, "platform": platform, "limit": limit, "cursor": cursor}
        return cast(api.SessionsPage, self._call("list_sessions", query=query, min_position=min_position))

    def session_by_key(self, session_key: str, *, min_position: Optional[int] = None) -> api.LedgerEntry:
        return cast(api.LedgerEntry, self._call("session_by_key", {"key": session_key}, min_position=min_position))

    def session_record(self, session_id: str, *, min_position: Optional[int] = None) -> api.SessionRecord:
        """One session instance, current or not: status, key, counters, message count."""
        return cast(api.SessionRecord, self._call("session_record", {"id": session_id}, min_position=min_position))

    def session_count(self, at_least: Optional[int] = None, *, min_position: Optional[int] = None) -> api.SessionCountResponse:
        """How many sessions the tenant holds (ended, destroyed and pruned ones, children and forks included), counted
        up to ``at_least`` (1-1000, the service's default 1); ``reached`` says whether there are that many."""
        return cast(api.SessionCountResponse, self._call("session_count", query={"atLeast": at_least}, min_position=min_position))

    def export_sessions_json(self, *, min_position: Optional[int] = None) -> dict[str, api.JsonObject]:
        """The index in Hermes' ``sessions.json`` shape."""
        return cast(dict[str, api.JsonObject], self._call("export_sessions_json", min_position=min_position))

    def prune(self, max_age_days: int, *, idempotency_key: Optional[str] = None) -> api.PruneResponse:
        """Admin: forgets routing entries idle longer than ``max_age_days`` (the events stay)."""
        return cast(api.PruneResponse, self._call("prune", body={"maxAgeDays": max_age_days}, idempotency_key=idempotency_key))

    # Full-text search (a read model: waits for this client's own writes)
    def search(
        self,
        q: str,
        *,
        session_key: Optional[str] = None,
        session_id: Optional[str] = None,
        platform: Optional[str] = None,
        role: Optional[str] = None,
        source: Optional[str] = None,
        since: Optional[str] = None,
        until: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        group_by_session: bool = False,
        hits_per_session: Optional[int] = None,
        include_deleted: Optional[bool] = None,
        include_rolled_back: Optional[bool] = None,
        min_position: Optional[int] = None,
    ) -> Union[api.SearchHitsPage, api.SearchSessionsPage]:
        """Words, "quoted phrases", -excluded, OR over every transcript and item history; hits by rank, or with
        ``group_by_session`` the best sessions with their best hits (``sessions`` instead of ``hits``).
        ``source``: ``"transcript"`` or ``"items"`` only; an item's hit carries its ``itemId``."""
        query = {
            "q": q,
            "sessionKey": session_key,
            "sessionId": session_id,
            "platform": platform,
            "role": role,
            "source": source,
            "since": since,
            "until": until,
            "limit": limit,
            "cursor": cursor,
            "groupBy": "session" if group_by_session else None,
            "hitsPerSession": hits_per_session,
            "includeDeleted": include_deleted,
            "includeRolledBack": include_rolled_back,
        }
        return cast(Union[api.SearchHitsPage, api.SearchSessionsPage], self._call("search", query=query, min_position=min_position))

    # Admin (an admin token when API_TOKENS names tenants)
    def list_projections(self) -> api.ProjectionsResponse:
        """Each projection's position, lag behind the head of the log, state and parked streams."""
        return cast(api.ProjectionsResponse, self._call("list_projections"))

    def get_projection(self, name: str) -> api.ProjectionStatus:
        return cast(api.ProjectionStatus, self._call("get_projection", {"name": name}))

    def rebuild_projection(self, name: str, *, idempotency_key: Optional[str] = None) -> api.ProjectionStatus:
        """Empties the projection and replays it from position 0; answers at once: poll :meth:`get_projection`."""
        return cast(api.ProjectionStatus, self._call("rebuild_projection", {"name": name}, idempotency_key=idempotency_key))

    def list_streams(
        self, *, category: Optional[str] = None, limit: Optional[int] = None, cursor: Optional[int] = None
    ) -> api.StreamsPage:
        """Streams, newest activity first, optionally of one category (conversation, session, job, gateway, ...)."""
        return cast(api.StreamsPage, self._call("list_streams", query={"category": category, "limit": limit, "cursor": cursor}))

    def erase_conversation(
        self, session_key: str, *, tenant: Optional[str] = None, idempotency_key: Optional[str] = None
    ) -> api.EraseResponse:
        """Erases a session key's messages and personal ids everywhere, keeping the lifecycle skeleton."""
        body = _present(sessionKey=session_key, tenant=tenant)
        return cast(api.EraseResponse, self._call("erase_conversation", body=body, idempotency_key=idempotency_key))

    def apply_retention(
        self,
        *,
        dry_run: bool = False,
        content_days: Optional[int] = None,
        content_days_by_platform: Optional[dict[str, Optional[int]]] = None,
        keep_checkpoints: Optional[int] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.RetentionResponse:
        """Applies the retention policy now (the configured RETENTION_*, or the parts given), or with dry_run reports what would expire."""
        body = _present(
            dryRun=dry_run, contentDays=content_days, contentDaysByPlatform=content_days_by_platform, keepCheckpoints=keep_checkpoints
        )
        return cast(api.RetentionResponse, self._call("apply_retention", body=body, idempotency_key=idempotency_key))

    # Runtime sessions
    def runtime_turn(
        self,
        session_key: str,
        provider: str,
        model: str,
        input: str,
        *,
        new_session: Optional[bool] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.RuntimeTurnResponse:
        """Starts a turn on the conversation's bound runtime session (a new one when unbound or on drift)."""
        body = _present(provider=provider, model=model, input=input, newSession=new_session)
        return cast(api.RuntimeTurnResponse, self._call("runtime_turn", {"key": session_key}, body=body, idempotency_key=idempotency_key))

    def runtime_new(
        self,
        session_key: str,
        *,
        task: Optional[str] = None,
        provider: Optional[str] = None,
        model: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> Union[api.RuntimeTurnResponse, api.RuntimeDetachResponse]:
        """``/new`` (unbind: the detach), or ``/new <task>`` (a new runtime session starting the task: the turn)."""
        body = _present(task=task, provider=provider, model=model)
        return cast(
            Union[api.RuntimeTurnResponse, api.RuntimeDetachResponse],
            self._call("runtime_new", {"key": session_key}, body=body, idempotency_key=idempotency_key),
        )

    def runtime_detach(self, session_key: str, *, idempotency_key: Optional[str] = None) -> api.RuntimeDetachResponse:
        return cast(api.RuntimeDetachResponse, self._call("runtime_detach", {"key": session_key}, idempotency_key=idempotency_key))

    def get_runtime_binding(self, session_key: str) -> api.RuntimeBinding:
        return cast(api.RuntimeBinding, self._call("get_runtime_binding", {"key": session_key}))

    def runtime_pending(self, session_key: str) -> api.RuntimePending:
        """Approvals and questions the bound runtime session waits on."""
        return cast(api.RuntimePending, self._call("runtime_pending", {"key": session_key}))

    def report_worker_event(
        self, runtime_session_id: str, event: api.WorkerEvent, *, idempotency_key: Optional[str] = None
    ) -> api.WorkerEventResponse:
        """The worker reports: ``{"type": "started" | "progress" | "question" | "approval_request" | ...}``."""
        return cast(
            api.WorkerEventResponse,
            self._call("report_worker_event", {"id": runtime_session_id}, body=dict(event), idempotency_key=idempotency_key),
        )

    def resolve_approval(
        self,
        runtime_session_id: str,
        approval_id: str,
        decision: str,
        *,
        remember: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.ApprovalAnswerResponse:
        params = {"id": runtime_session_id, "approvalId": approval_id}
        body = _present(decision=decision, remember=remember)
        return cast(api.ApprovalAnswerResponse, self._call("resolve_approval", params, body=body, idempotency_key=idempotency_key))

    def answer_question(
        self, runtime_session_id: str, question_id: str, answer: str, *, idempotency_key: Optional[str] = None
    ) -> api.QuestionAnswerResponse:
        params = {"id": runtime_session_id, "questionId": question_id}
        return cast(api.QuestionAnswerResponse, self._call("answer_question", params, body={"answer": answer}, idempotency_key=idempotency_key))

    def get_runtime_session(self, runtime_session_id: str) -> api.RuntimeSessionView:
        return cast(api.RuntimeSessionView, self._call("get_runtime_session", {"id": runtime_session_id}))

    # Scheduled jobs
    def create_job(self, job: api.JsonObject, *, idempotency_key: Optional[str] = None) -> api.JobWritten:
        """``job``: ``schedule`` and ``prompt`` and/or ``skill``, and the optional fields of ``POST /v1/jobs``."""
        return cast(api.JobWritten, self._call("create_job", body=dict(job), idempotency_key=idempotency_key))

    def import_jobs(self, jobs: Sequence[api.JsonObject], *, idempotency_key: Optional[str] = None) -> api.ImportJobsResponse:
        """Hermes' ``cron/jobs.json`` jobs; ids that exist are left alone."""
        return cast(api.ImportJobsResponse, self._call("import_jobs", body={"jobs": list(jobs)}, idempotency_key=idempotency_key))

    def list_jobs(
        self, *, enabled: Optional[bool] = None, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> api.JobsPage:
        return cast(api.JobsPage, self._call("list_jobs", query={"enabled": enabled, "limit": limit, "cursor": cursor}))

    def get_job(self, job_id: str) -> api.JobDetail:
        return cast(api.JobDetail, self._call("get_job", {"id": job_id}))

    def update_job(self, job_id: str, changes: api.JsonObject, *, idempotency_key: Optional[str] = None) -> api.UpdateJobResponse:
        """``changes``: any of the job's editable fields (``{"enabled": False}`` pauses it)."""
        return cast(api.UpdateJobResponse, self._call("update_job", {"id": job_id}, body=dict(changes), idempotency_key=idempotency_key))

    def delete_job(self, job_id: str, *, idempotency_key: Optional[str] = None) -> api.DeleteJobResponse:
        return cast(api.DeleteJobResponse, self._call("delete_job", {"id": job_id}, idempotency_key=idempotency_key))

    def fire_job(self, job_id: str, slot: Optional[str] = None, *, idempotency_key: Optional[str] = None) -> api.FireJobResponse:
        """Fires a slot at most once, across every instance (``409 ALREADY_FIRED`` for the others)."""
        return cast(api.FireJobResponse, self._call("fire_job", {"id": job_id}, body=_present(slot=slot), idempotency_key=idempotency_key))

    def report_run(
        self,
        job_id: str,
        fire_id: str,
        status: str,
        *,
        error: Optional[str] = None,
        idempotency_key: Optional[str] = None,
    ) -> api.ReportRunResponse:
        params = {"id": job_id, "fireId": fire_id}
        body = _present(status=status, error=error)
        return cast(api.ReportRunResponse, self._call("report_run", params, body=body, idempotency_key=idempotency_key))

    # Event streams
    def events(
        self,
        *,
        types: Optional[Sequence[str]] = None,
        session_key: Optional[str] = None,
        from_position: Optional[int] = None,
        read_timeout: float = 60.0,
        on_reconnect: Optional[Callable[[int, BaseException], None]] = None,
    ) -> Iterator[api.LifecycleEvent]:
        """Lifecycle events as they are written (suspends, resume marks, turns, fires, ...).

        Reconnects after a dropped connection or a restart of the service, missing nothing; stop by leaving the
        loop. ``from_position=0`` starts at the beginning of the log; by default only new events come.
        """
        query = {"types": list(types) if types else None, "sessionKey": session_key, "fromPosition": from_position}
        events = reconnecting_events(self._transport, "lifecycle_events", query, read_timeout=read_timeout, on_reconnect=on_reconnect)
        for event in events:
            yield cast(api.LifecycleEvent, json.loads(event.data))

    def job_fires(
        self,
        *,
        from_position: Optional[int] = None,
        read_timeout: float = 60.0,
        on_reconnect: Optional[Callable[[int, BaseException], None]] = None,
    ) -> Iterator[api.JobFire]:
        """Job fires and run reports as they happen; reconnects like :meth:`events`."""
        fires = reconnecting_events(
            self._transport, "job_fires", {"from": from_position}, read_timeout=read_timeout, on_reconnect=on_reconnect
        )
        for event in fires:
            name = cast(Any, event.event)
            yield {"name": name, "position": int(event.id or 0), "data": json.loads(event.data)}
