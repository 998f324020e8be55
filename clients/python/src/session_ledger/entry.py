"""A routing entry in the shape of Hermes' ``SessionEntry``, read from the service's camelCase entry."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Mapping, Optional

from .source import SessionSource


def local_time(value: str) -> datetime:
    """The service's ISO 8601 UTC time as Hermes keeps times: naive, in this machine's local zone.

    Hermes compares entry times with ``datetime.now()``; an aware datetime there would raise ``TypeError``.
    """
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone().replace(tzinfo=None)


def optional_local_time(value: Optional[str]) -> Optional[datetime]:
    return local_time(value) if value else None


# The service's reset reasons in the names Hermes writes (its auto_reset_reason and state.db end_reason).
HERMES_RESET_REASONS = {
    "reset": "session_reset",
    "switch": "session_switch",
    "forced": "session_reset",
    "resume_expired": "resume_pending_expired",
}


def hermes_reset_reason(reason: Optional[str]) -> Optional[str]:
    return HERMES_RESET_REASONS.get(reason, reason) if reason else reason


def _iso(value: Optional[datetime]) -> Optional[str]:
    return value.isoformat() if value else None


@dataclass
class SessionEntry:
    """Hermes' ``SessionEntry`` fields, in Hermes' order, plus what the service adds after them.

    ``platform`` is the platform's name (Hermes holds its ``Platform`` enum). ``prev_session_id`` is the session an
    automatic reset replaced. ``metadata``, ``active_turn_token``, ``active_turn_started_at`` and
    ``model_override`` are Hermes-process state the service does not hold: always empty here.
    """

    session_key: str
    session_id: str
    created_at: datetime
    updated_at: datetime
    origin: Optional[SessionSource] = None
    display_name: Optional[str] = None
    platform: Optional[str] = None
    chat_type: str = "dm"
    metadata: dict[str, Any] = field(default_factory=dict)
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    total_tokens: int = 0
    estimated_cost_usd: float = 0.0
    cost_status: str = "unknown"
    last_prompt_tokens: int = 0
    was_auto_reset: bool = False
    auto_reset_reason: Optional[str] = None
    reset_had_activity: bool = False
    prev_session_id: Optional[str] = None
    is_fresh_reset: bool = False
    expiry_finalized: bool = False
    suspended: bool = False
    resume_pending: bool = False
    resume_reason: Optional[str] = None
    last_resume_marked_at: Optional[datetime] = None
    active_turn_token: Optional[str] = None
    active_turn_started_at: Optional[datetime] = None
    model_override: Optional[dict[str, str]] = None
    # The service's own, beyond Hermes' fields:
    gateway_id: Optional[str] = None
    turn_count: int = 0
    session_ids: list[str] = field(default_factory=list)
    """Every session this conversation has had, oldest first (known when the answer carried it)."""
    reset_notice: Optional[str] = None
    """After a reset policy's idle or daily reset, the text the service suggests sending the user (when it notifies)."""

    @classmethod
    def from_ledger(cls, entry: Mapping[str, Any]) -> "SessionEntry":
        origin = entry.get("origin")
        session_ids = list(entry.get("sessionIds") or [])
        was_auto_reset = bool(entry.get("wasAutoReset", False))
        previous = session_ids[-2] if was_auto_reset and len(session_ids) >= 2 else None
        return cls(
            session_key=entry["sessionKey"],
            session_id=entry["sessionId"],
            created_at=local_time(entry["createdAt"]),
            updated_at=local_time(entry["updatedAt"]),
            origin=SessionSource.from_ledger(origin) if isinstance(origin, Mapping) else None,
            display_name=entry.get("displayName"),
            platform=entry.get("platform"),
            chat_type=entry.get("chatType") or "dm",
            input_tokens=int(entry.get("inputTokens", 0)),
            output_tokens=int(entry.get("outputTokens", 0)),
            cache_read_tokens=int(entry.get("cacheReadTokens", 0)),
            cache_write_tokens=int(entry.get("cacheWriteTokens", 0)),
            total_tokens=int(entry.get("totalTokens", 0)),
            estimated_cost_usd=float(entry.get("estimatedCostUsd", 0.0)),
            cost_status=entry.get("costStatus") or "unknown",
            last_prompt_tokens=int(entry.get("lastPromptTokens") or 0),
            was_auto_reset=was_auto_reset,
            auto_reset_reason=hermes_reset_reason(entry.get("autoResetReason")),
            reset_had_activity=bool(entry.get("resetHadActivity", False)),
            prev_session_id=previous,
            is_fresh_reset=bool(entry.get("isFreshReset", False)),
            expiry_finalized=bool(entry.get("expiryFinalized", False)),
            suspended=bool(entry.get("suspended", False)),
            resume_pending=bool(entry.get("resumePending", False)),
            resume_reason=entry.get("resumeReason"),
            last_resume_marked_at=optional_local_time(entry.get("lastResumeMarkedAt")),
            gateway_id=entry.get("gatewayId"),
            turn_count=int(entry.get("turnCount", 0)),
            session_ids=session_ids,
        )

    def to_dict(self) -> dict[str, Any]:
        """Hermes' ``SessionEntry.to_dict()`` layout (one value of its ``sessions.json``)."""
        result: dict[str, Any] = {
            "session_key": self.session_key,
            "session_id": self.session_id,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "display_name": self.display_name,
            "platform": self.platform,
            "chat_type": self.chat_type,
            "metadata": self.metadata,
        }
        for name in (
            "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "total_tokens",
            "last_prompt_tokens", "estimated_cost_usd", "cost_status", "expiry_finalized", "suspended",
            "resume_pending", "resume_reason",
        ):  # fmt: skip
            result[name] = getattr(self, name)
        result["last_resume_marked_at"] = _iso(self.last_resume_marked_at)
        result["active_turn_token"] = self.active_turn_token
        result["active_turn_started_at"] = _iso(self.active_turn_started_at)
        for name in ("is_fresh_reset", "was_auto_reset", "auto_reset_reason", "reset_had_activity", "prev_session_id"):
            result[name] = getattr(self, name)
        if self.model_override:
            result["model_override"] = dict(self.model_override)
        if self.origin:
            result["origin"] = self.origin.to_dict()
        return result
