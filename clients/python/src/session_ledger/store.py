"""Hermes' gateway ``SessionStore``, with its public method names and return shapes, kept by Session Ledger.

A Hermes gateway swaps it in where it built the file-backed store; the routing index, the flags and the
transcripts then live in the ledger, so several gateway processes can share them and nothing is lost on a crash.
What is kept of Hermes' behaviour and what cannot be is in clients/python/README.md.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator, Mapping as MappingABC
from datetime import datetime, timedelta
from typing import Any, Callable, Mapping, Optional, cast

from . import api_types as api
from .client import LedgerClient
from .entry import SessionEntry
from .errors import LedgerError, LedgerNetworkError
from .hermes_messages import from_ledger_message, to_ledger_message
from .session_key import session_key_for
from .source import SessionSource, platform_name

logger = logging.getLogger("session_ledger.store")

# Hermes' transcript may hold bookkeeping rows (``session_meta``: tools, model, platform) that are not messages:
# they are kept as the session's memory entry ``hermes.<role>``, the latest one per role.
BOOKKEEPING_MEMORY_PREFIX = "hermes."
# Hermes-process state kept per session as memory entries: a new session (reset, automatic reset) starts without it.
MODEL_OVERRIDE_MEMORY = BOOKKEEPING_MEMORY_PREFIX + "model_override"
EXPIRY_FINALIZED_MEMORY = BOOKKEEPING_MEMORY_PREFIX + "expiry_finalized"
# Hermes' PERSISTABLE_MODEL_OVERRIDE_KEYS: never credentials.
PERSISTABLE_MODEL_OVERRIDE_KEYS = ("model", "provider", "base_url")
_LIST_PAGE = 500


def _missing(error: LedgerError) -> bool:
    # What the service does not have (a conversation, a session, a memory entry). A route it does not have
    # (ROUTE_NOT_FOUND: a service older than this client) is an error to see, never an empty answer.
    return error.status == 404 and error.code != "ROUTE_NOT_FOUND"


class LedgerSessionStore:
    """``LedgerSessionStore(url, token=None)``: Hermes' ``SessionStore`` methods on a Session Ledger service.

    ``config`` may be Hermes' ``GatewayConfig`` (its ``group_sessions_per_user`` and ``thread_sessions_per_user``
    are sent with every resolve, as Hermes keys sessions by them, and so is the reset policy its
    ``get_reset_policy`` picks for the source, which the service stores with the conversation and applies);
    ``gateway_id`` names this gateway process for restart recovery. ``background_process_since_fn(source)`` answers
    when the oldest live background process of that source's conversation started (None: none), reported with each
    resolve so a reset policy never resets a conversation whose process still runs. Other keyword arguments go to
    :class:`LedgerClient`; ``client`` gives one to share.
    """

    def __init__(
        self,
        url: str,
        token: Optional[str] = None,
        *,
        config: Any = None,
        gateway_id: str = "hermes",
        group_sessions_per_user: Optional[bool] = None,
        thread_sessions_per_user: Optional[bool] = None,
        background_process_since_fn: Optional[Callable[[SessionSource], Optional[datetime]]] = None,
        has_active_processes_fn: Optional[Callable[[str], bool]] = None,
        agent_name: str = "main",
        client: Optional[LedgerClient] = None,
        **client_options: Any,
    ) -> None:
        self.client = client or LedgerClient(url, token, **client_options)
        self.config = config
        self.gateway_id = gateway_id
        self.background_process_since_fn = background_process_since_fn
        self._has_active_processes_fn = has_active_processes_fn
        self.agent_name = agent_name
        # Hermes' config looks policies up by its Platform enum: the one each platform name came with.
        self._platforms: dict[str, Any] = {}
        # Sessions this process finalized: what the service's entry does not say (see set_expiry_finalized).
        self._finalized: set[tuple[str, str]] = set()
        self._isolation: api.ResolveOptions = {}
        group = group_sessions_per_user if group_sessions_per_user is not None else getattr(config, "group_sessions_per_user", None)
        thread = thread_sessions_per_user if thread_sessions_per_user is not None else getattr(config, "thread_sessions_per_user", None)
        if group is not None:
            self._isolation["groupSessionsPerUser"] = bool(group)
        if thread is not None:
            self._isolation["threadSessionsPerUser"] = bool(thread)

    # Routing
    def get_or_create_session(self, source: SessionSource, force_new: bool = False, touch_activity: bool = True) -> SessionEntry:
        """The conversation's current session, created on first contact; a suspended one is replaced by a new
        session, a resume mark keeps it (within the service's freshness window). Concurrent calls for one
        conversation, from any number of processes, get one session. ``source`` may be Hermes' own
        ``SessionSource`` (its ``Platform`` enum included) or anything with its attribute names."""
        ledger_source = SessionSource.coerce(source)
        self._platforms.setdefault(platform_name(source.platform), source.platform)
        options: api.ResolveOptions = dict(self._isolation)  # type: ignore[assignment]
        policy = self._reset_policy_for(source)
        if policy is not None:
            options["resetPolicy"] = policy
        activity: Optional[api.ResolveActivity] = None
        if self.background_process_since_fn is not None:
            since = self.background_process_since_fn(source)
            activity = {"backgroundProcessSince": since.astimezone().isoformat() if since is not None else None}
        answer = self.client.resolve_session(
            ledger_source, force_new=force_new, options=options or None, gateway_id=self.gateway_id, activity=activity
        )
        entry = self._entry_of(answer["entry"])
        # This resolve's own account of a replacement (the entry's flags say the same for the session it created).
        entry.reset_notice = answer.get("notice")
        return entry

    def _reset_policy_for(self, source: SessionSource) -> Optional[api.ResetPolicy]:
        """Hermes' ``config.get_reset_policy(platform, session_type)`` as a dict, when the config has one."""
        pick = getattr(self.config, "get_reset_policy", None)
        if pick is None:
            return None
        policy = pick(platform=source.platform, session_type=source.chat_type)
        to_dict = getattr(policy, "to_dict", None)
        if to_dict is None:
            return None
        return cast(api.ResetPolicy, dict(to_dict()))

    def update_session(self, session_key: str, last_prompt_tokens: Optional[int] = None, touch_activity: bool = True) -> None:
        """Sets ``last_prompt_tokens`` on the entry's current session, no turn recorded (``PATCH
        /v1/conversations/{key}``), as Hermes' ``update_session`` sets it on the entry; the count it holds already
        writes nothing. Nothing happens for a key without an entry, nor when its session ended meanwhile (a reset
        racing this call: the count measured the old session). Activity is recorded by resolves and turns already,
        so a touch alone changes nothing."""
        if last_prompt_tokens is None:
            return
        try:
            self.client.update_conversation(session_key, last_prompt_tokens=int(last_prompt_tokens))
        except LedgerError as error:
            if _missing(error) or error.code in ("SESSION_ENDED", "SESSION_DESTROYED"):
                return
            raise

    def reset_session(self, session_key: str, display_name: Optional[str] = None) -> Optional[SessionEntry]:
        """``/new``: a new session id; None when the key has no entry. ``display_name`` renames the entry (kept when
        None), as in Hermes."""
        try:
            return self._entry_of(self.client.reset_conversation(session_key, display_name=display_name)["entry"])
        except LedgerError as error:
            if _missing(error):
                return None
            raise

    def switch_session(self, session_key: str, target_session_id: str) -> Optional[SessionEntry]:
        """``/resume``: points the key at one of its conversation's earlier sessions, reopening it. None when the
        key has no entry, or the session is not one of this conversation's."""
        try:
            return self._entry_of(self.client.switch_session(session_key, target_session_id)["entry"])
        except LedgerError as error:
            if _missing(error):
                return None
            raise

    def suspend_session(self, session_key: str) -> bool:
        """``/stop``: the next message starts a new session. True if the entry existed."""
        try:
            self.client.suspend_conversation(session_key)
            return True
        except LedgerError as error:
            if _missing(error):
                return False
            raise

    def mark_resume_pending(self, session_key: str, reason: str = "restart_timeout") -> bool:
        """Keeps the session for an auto-continue after a restart; never overrides a suspension. True if marked."""
        try:
            self.client.mark_resume_pending(session_key, cast(api.ResumeReason, reason))
            return True
        except LedgerError as error:
            if _missing(error) or error.code == "CONVERSATION_SUSPENDED":
                return False
            raise

    def clear_resume_pending(self, session_key: str) -> bool:
        """True if a mark was cleared."""
        try:
            return bool(self.client.clear_resume_pending(session_key)["changed"])
        except LedgerError as error:
            if _missing(error):
                return False
            raise

    # Transcripts
    def append_to_transcript(self, session_id: str, message: dict[str, Any], skip_db: bool = False) -> None:
        """Records the message at once, durably, as a one-message turn; every key of it comes back from
        :meth:`load_transcript`. A bookkeeping row (``session_meta``) becomes the memory entry ``hermes.<role>``."""
        if skip_db:
            return
        converted = to_ledger_message(message)
        if converted is None:
            self._keep_bookkeeping(session_id, message)
            return
        self.client.record_turn(session_id, [converted])  # type: ignore[list-item]

    def load_transcript(self, session_id: str) -> list[dict[str, Any]]:
        """The live messages (rewound and rewritten-away ones left out), as Hermes' message dicts; [] for an
        unknown session."""
        try:
            transcript = self.client.get_transcript(session_id)
        except LedgerError as error:
            if _missing(error):
                return []
            raise
        return [from_ledger_message(message) for message in transcript["messages"]]

    def rewrite_transcript(
        self,
        session_id: str,
        messages: list[dict[str, Any]],
        active_only: bool = False,
        reject_active_turn_lease: bool = False,
    ) -> bool:
        """``/compress``, ``/retry``: these messages are the transcript now; the replaced ones stay in history
        (soft-deleted, never destroyed, whatever ``active_only`` says). False when the write failed."""
        converted = []
        for message in messages:
            ledger_message = to_ledger_message(message)
            if ledger_message is None:
                self._keep_bookkeeping(session_id, message)
            else:
                converted.append(ledger_message)
        try:
            self.client.rewrite_transcript(session_id, converted)  # type: ignore[arg-type]
            return True
        except (LedgerError, LedgerNetworkError) as error:
            logger.warning("rewrite_transcript of %s failed: %s", session_id, error)
            return False

    def rewind_session(self, session_id: str, n: int = 1, *, require_retryable_composite: bool = False) -> Optional[dict[str, Any]]:
        """``/undo [n]``: soft-deletes the last ``n`` user turns and what followed them.
        ``{"rewound_count", "turns_undone", "target_text"}``, or None when there was nothing to rewind or the
        write failed."""
        try:
            answer = self.client.rewind(session_id, max(int(n), 1))
        except (LedgerError, LedgerNetworkError) as error:
            logger.warning("rewind_session of %s failed: %s", session_id, error)
            return None
        if answer["rewoundCount"] == 0:
            return None
        return {"rewound_count": answer["rewoundCount"], "turns_undone": answer["turnsUndone"], "target_text": answer["targetText"]}

    # The index
    def list_sessions(self, active_minutes: Optional[int] = None) -> list[SessionEntry]:
        """Every routing entry (or those active in the last ``active_minutes``), most recent activity first."""
        return [self._entry_of(entry) for entry in self._ledger_entries(active_minutes)]

    def lookup_by_session_id(self, session_id: str) -> Optional[SessionEntry]:
        """The routing entry whose current session this is, if any."""
        if not session_id:
            return None
        try:
            record = self.client.session_record(session_id)
            entry = self.client.session_by_key(record["sessionKey"])
        except LedgerError as error:
            if _missing(error):
                return None
            raise
        return self._entry_of(entry) if entry["sessionId"] == session_id else None

    def lookup_by_session_key(self, session_key: str) -> Optional[SessionEntry]:
        if not session_key:
            return None
        conversation = self._conversation(session_key)
        return self._entry_of(conversation) if conversation is not None else None

    def peek_session_id(self, session_key: str) -> Optional[str]:
        entry = self.lookup_by_session_key(session_key)
        return entry.session_id if entry else None

    def has_any_sessions(self) -> bool:
        """Whether a session other than the one just created exists (Hermes asks this on a first message): as
        Hermes counts every session its store holds, ended ones included, the service counts this tenant's sessions
        of every status, children and forks and those of pruned entries included (``GET /v1/session-count``)."""
        return bool(self.client.session_count(2)["reached"])

    def prune_old_entries(self, max_age_days: int) -> int:
        """Forgets routing entries idle longer than ``max_age_days`` (suspended ones and ones with queued
        messages stay; the sessions and their events stay too). Needs an ``admin`` token. Returns the count."""
        if max_age_days is None or max_age_days <= 0:
            return 0
        return len(self.client.prune(int(max_age_days)).get("pruned") or [])

    def suspend_recently_active(self, max_age_seconds: int = 120) -> int:
        """After a crash: marks entries active in the last ``max_age_seconds`` for resume (reason
        ``restart_interrupted``), skipping suspended and already marked ones. Returns how many it marked.

        ``client.gateway_started(gateway_id, boot_id)`` does this in the service, for this gateway's conversations
        only, and tells a clean restart from a crash by itself.
        """
        cutoff = datetime.now() - timedelta(seconds=max_age_seconds)
        minutes = max(1, math.ceil(max_age_seconds / 60))
        marked = 0
        for entry in self.list_sessions(active_minutes=minutes):
            if entry.resume_pending or entry.suspended or entry.updated_at < cutoff:
                continue
            if self.mark_resume_pending(entry.session_key, "restart_interrupted"):
                marked += 1
        return marked

    # What Hermes' gateway (gateway/run.py) also calls
    def set_model_override(self, session_key: str, override: Optional[Mapping[str, Any]]) -> None:
        """Keeps (or clears, with None or nothing persistable) the ``/model`` override of the key's current
        session: ``model``, ``provider`` and ``base_url`` only, never credentials. A new session starts without one."""
        session_id = self.peek_session_id(session_key)
        if session_id is None:
            return
        cleaned = _persistable_model_override(override)
        if cleaned == self._model_override_of(session_id):
            return
        if cleaned is None:
            self.client.remove_memory(session_id, MODEL_OVERRIDE_MEMORY)
        else:
            self.client.set_memory(session_id, MODEL_OVERRIDE_MEMORY, cleaned)

    def get_model_override(self, session_key: str) -> Optional[dict[str, str]]:
        """The ``/model`` override kept for the key's current session, if any."""
        session_id = self.peek_session_id(session_key)
        return None if session_id is None else self._model_override_of(session_id)

    def set_expiry_finalized(self, entry: Any, *, clear_model_override: bool = True) -> None:
        """The expiry watcher finalized ``entry`` (a ``SessionEntry``, Hermes' or this package's): its flag is set,
        kept with the session (memory entry ``hermes.expiry_finalized``) and answered by this store's entries for
        that session; ``clear_model_override`` drops the session's ``/model`` override, a conversation boundary."""
        entry.expiry_finalized = True
        if clear_model_override:
            entry.model_override = None
        self._finalized.add((entry.session_key, entry.session_id))
        try:
            self.client.set_memory(entry.session_id, EXPIRY_FINALIZED_MEMORY, {"at": datetime.now().astimezone().isoformat()})
            if clear_model_override and self._model_override_of(entry.session_id) is not None:
                self.client.remove_memory(entry.session_id, MODEL_OVERRIDE_MEMORY)
        except LedgerError as error:
            if not _missing(error):
                raise

    def is_session_finalizable(self, entry: Any) -> bool:
        """Whether the expiry watcher will ever finalize ``entry``: its reset policy (from ``config``) is not
        ``none``. No config, or a policy that cannot be read, answers False, as in Hermes."""
        try:
            return self._reset_policy_of(entry).mode != "none"
        except Exception:
            return False

    def has_platform_message_id(self, session_id: str, platform_message_id: str) -> bool:
        """Whether the session's transcript (rewound and rewritten-away messages included) holds a message with
        this ``platform_message_id`` (or the older ``message_id`` key): the gateway's guard against recording a
        retried inbound message twice."""
        if not session_id or not platform_message_id:
            return False
        try:
            transcript = self.client.get_transcript(session_id, include_deleted=True)
        except LedgerError as error:
            if _missing(error):
                return False
            raise
        wanted = str(platform_message_id)
        for message in transcript["messages"]:
            hermes = from_ledger_message(message)
            if wanted in (str(hermes.get("platform_message_id")), str(hermes.get("message_id"))):
                return True
        return False

    def _generate_session_key(self, source: Any) -> str:
        """The key the service gives ``source`` under this store's isolation settings (Hermes'
        ``build_session_key``), worked out here without a request."""
        ledger_source = SessionSource.coerce(source)
        return session_key_for(
            ledger_source,
            group_sessions_per_user=bool(self._isolation.get("groupSessionsPerUser", True)),
            thread_sessions_per_user=bool(self._isolation.get("threadSessionsPerUser", False)),
            agent=self.agent_name,
        )

    def _is_session_expired(self, entry: Any) -> bool:
        """Whether ``entry``'s reset policy (from ``config``) has expired it by now, judged from ``updated_at``
        alone: never while ``has_active_processes_fn`` says the session has work (or cannot tell). The service
        applies the same policy at the next resolve and in its sweep."""
        if self._has_active_processes(entry.session_key):
            return False
        try:
            policy = self._reset_policy_of(entry)
        except Exception:
            return False
        return _policy_expired(policy, entry.updated_at, datetime.now())

    @property
    def _entries(self) -> "_LedgerEntries":
        """Hermes' ``_entries`` (session key → ``SessionEntry``), read from the service at each access."""
        return _LedgerEntries(self)

    def _ensure_loaded(self) -> None:
        """Hermes loads its file before reading ``_entries``; here every read asks the service."""

    # Internals
    def _entry_of(self, entry: Mapping[str, Any]) -> SessionEntry:
        converted = SessionEntry.from_ledger(entry)
        if (converted.session_key, converted.session_id) in self._finalized:
            converted.expiry_finalized = True
        return converted

    def _model_override_of(self, session_id: str) -> Optional[dict[str, str]]:
        try:
            entries = self.client.get_memory(session_id)["entries"]
        except LedgerError as error:
            if _missing(error):
                return None
            raise
        kept = next((item for item in entries if item["name"] == MODEL_OVERRIDE_MEMORY), None)
        return _persistable_model_override(kept["value"]) if kept is not None else None

    def _reset_policy_of(self, entry: Any) -> Any:
        platform = entry.platform
        return self.config.get_reset_policy(platform=self._platforms.get(platform_name(platform), platform), session_type=entry.chat_type)

    def _has_active_processes(self, session_key: str) -> bool:
        if self._has_active_processes_fn is None:
            return False
        try:
            return bool(self._has_active_processes_fn(session_key))
        except Exception as error:
            logger.warning("has_active_processes_fn failed for %s; keeping the session: %s", session_key, error)
            return True

    def _conversation(self, session_key: str) -> Optional[api.ConversationResponse]:
        try:
            return self.client.get_conversation(session_key)
        except LedgerError as error:
            if _missing(error):
                return None
            raise

    def _ledger_entries(self, active_minutes: Optional[int]) -> list[api.LedgerEntry]:
        entries: list[api.LedgerEntry] = []
        cursor: Optional[str] = None
        while True:
            page = self.client.list_sessions(active_minutes=active_minutes, limit=_LIST_PAGE, cursor=cursor)
            entries.extend(page["sessions"])
            cursor = page["nextCursor"]
            if cursor is None:
                return entries

    def _keep_bookkeeping(self, session_id: str, row: Mapping[str, Any]) -> None:
        role = str(row.get("role") or "unknown")
        self.client.set_memory(session_id, BOOKKEEPING_MEMORY_PREFIX + role, dict(row))


class _LedgerEntries(MappingABC):  # type: ignore[type-arg]
    """A read-only view of the routing index with the shape of Hermes' ``SessionStore._entries`` dict."""

    def __init__(self, store: LedgerSessionStore) -> None:
        self._store = store

    def __getitem__(self, session_key: str) -> SessionEntry:
        entry = self._store.lookup_by_session_key(session_key)
        if entry is None:
            raise KeyError(session_key)
        return entry

    def __contains__(self, session_key: object) -> bool:
        return isinstance(session_key, str) and self._store.lookup_by_session_key(session_key) is not None

    def __iter__(self) -> Iterator[str]:
        return iter([entry.session_key for entry in self._store.list_sessions()])

    def __len__(self) -> int:
        return len(self._store.list_sessions())

    def items(self):  # type: ignore[no-untyped-def, override]
        return [(entry.session_key, entry) for entry in self._store.list_sessions()]

    def values(self):  # type: ignore[no-untyped-def, override]
        return self._store.list_sessions()


def _persistable_model_override(override: Any) -> Optional[dict[str, str]]:
    if not isinstance(override, Mapping):
        return None
    cleaned = {key: str(value) for key, value in override.items() if key in PERSISTABLE_MODEL_OVERRIDE_KEYS and value not in (None, "")}
    return cleaned or None


def _policy_expired(policy: Any, updated_at: datetime, now: datetime) -> bool:
    """Hermes' idle and daily rules on naive local times: idle past ``idle_minutes``, or last active before
    today's ``at_hour`` (yesterday's, before that hour)."""
    mode = getattr(policy, "mode", "none")
    if mode in ("idle", "both") and now > updated_at + timedelta(minutes=float(policy.idle_minutes)):
        return True
    if mode in ("daily", "both"):
        boundary = now.replace(hour=int(policy.at_hour), minute=0, second=0, microsecond=0)
        if now < boundary:
            boundary -= timedelta(days=1)
        return updated_at < boundary
    return False
