"""LedgerSessionStore as a drop-in for Hermes' SessionStore: Hermes' own SessionSource and SessionEntry shapes
(recreated here from Hermes' field lists, with its Platform enum and a GatewayConfig that looks policies up by
that enum), and every method Hermes' gateway calls, with Hermes' signatures."""

from __future__ import annotations

import enum
import inspect
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any, Dict, Optional

import pytest

from session_ledger import LedgerSessionStore, SessionEntry


class Platform(enum.Enum):
    LOCAL = "local"
    TELEGRAM = "telegram"
    DISCORD = "discord"
    WHATSAPP = "whatsapp"
    SLACK = "slack"
    SIGNAL = "signal"
    MATRIX = "matrix"


@dataclass
class HermesSessionSource:
    """Hermes' gateway.session.SessionSource fields, in its order, with its defaults."""

    platform: Platform
    chat_id: str
    chat_name: Optional[str] = None
    chat_type: str = "dm"
    user_id: Optional[str] = None
    user_name: Optional[str] = None
    thread_id: Optional[str] = None
    chat_topic: Optional[str] = None
    user_id_alt: Optional[str] = None
    chat_id_alt: Optional[str] = None
    is_bot: bool = False
    scope_id: Optional[str] = None
    guild_id: Optional[str] = None
    parent_chat_id: Optional[str] = None
    message_id: Optional[str] = None
    role_authorized: bool = False
    profile: Optional[str] = None
    profile_route_rejected: bool = field(default=False, repr=False, compare=False)
    auto_thread_created: bool = False
    auto_thread_initial_name: Optional[str] = None
    prospective_thread_id: Optional[str] = None
    delivered_via_upstream_relay: bool = False

    def __post_init__(self) -> None:
        if self.scope_id is None and self.guild_id is not None:
            self.scope_id = self.guild_id
        elif self.scope_id is not None:
            self.guild_id = self.scope_id


@dataclass
class HermesSessionEntry:
    """Hermes' gateway.session.SessionEntry fields, in its order, with its defaults."""

    session_key: str
    session_id: str
    created_at: datetime
    updated_at: datetime
    origin: Optional[HermesSessionSource] = None
    display_name: Optional[str] = None
    platform: Optional[Platform] = None
    chat_type: str = "dm"
    metadata: Dict[str, Any] = field(default_factory=dict)
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
    model_override: Optional[Dict[str, str]] = None


@dataclass
class ResetPolicy:
    mode: str = "none"
    at_hour: int = 4
    idle_minutes: int = 1440
    notify: bool = True

    def to_dict(self) -> Dict[str, Any]:
        return {"mode": self.mode, "at_hour": self.at_hour, "idle_minutes": self.idle_minutes, "notify": self.notify}


class GatewayConfig:
    """Looks policies up by the Platform enum, as Hermes' GatewayConfig does: a plain string would miss."""

    def __init__(self, by_platform: Dict[Platform, ResetPolicy]) -> None:
        self.by_platform = by_platform
        self.group_sessions_per_user = True
        self.thread_sessions_per_user = False

    def get_reset_policy(self, platform: Any = None, session_type: Any = None) -> ResetPolicy:
        assert isinstance(platform, Platform), f"Hermes' config is asked with {platform!r}, not its enum"
        return self.by_platform.get(platform, ResetPolicy())


@pytest.fixture
def config() -> GatewayConfig:
    return GatewayConfig({Platform.TELEGRAM: ResetPolicy(mode="idle", idle_minutes=60), Platform.SLACK: ResetPolicy(mode="none")})


@pytest.fixture
def hermes_store(ledger_url: str, config: GatewayConfig) -> LedgerSessionStore:
    return LedgerSessionStore(ledger_url, config=config, gateway_id=f"pytest-{uuid.uuid4().hex[:8]}")


def telegram_dm(chat_id: str) -> HermesSessionSource:
    return HermesSessionSource(Platform.TELEGRAM, chat_id, chat_name="Alice", user_id=chat_id, user_name="Alice")


def hermes_entry_of(entry: SessionEntry, **changes: Any) -> HermesSessionEntry:
    values: Dict[str, Any] = dict(
        session_key=entry.session_key, session_id=entry.session_id, created_at=entry.created_at,
        updated_at=entry.updated_at, platform=Platform(entry.platform), chat_type=entry.chat_type,
    )  # fmt: skip
    values.update(changes)
    return HermesSessionEntry(**values)


def test_takes_hermes_own_session_source_enum_and_all(hermes_store: LedgerSessionStore, chat_id: str) -> None:
    entry = hermes_store.get_or_create_session(telegram_dm(chat_id))

    assert entry.session_key == f"agent:main:telegram:dm:{chat_id}" and entry.platform == "telegram"
    assert entry.origin is not None and entry.origin.user_name == "Alice"
    assert hermes_store.get_or_create_session(telegram_dm(chat_id)).session_id == entry.session_id


def test_takes_any_object_with_hermes_attribute_names(hermes_store: LedgerSessionStore, chat_id: str) -> None:
    duck = SimpleNamespace(platform=Platform.DISCORD, chat_id=int(chat_id, 16), chat_type="group", user_id=42)

    entry = hermes_store.get_or_create_session(duck)

    assert entry.session_key == f"agent:main:discord:group:{int(chat_id, 16)}:42"
    with pytest.raises(TypeError):
        hermes_store.get_or_create_session(SimpleNamespace(chat_id="1"))


@pytest.mark.parametrize(
    "make",
    [
        lambda c: HermesSessionSource(Platform.TELEGRAM, c),
        lambda c: HermesSessionSource(Platform.TELEGRAM, f"-100{c}", chat_type="group", user_id="7"),
        lambda c: HermesSessionSource(Platform.DISCORD, c, chat_type="group", thread_id="t1", user_id="7"),
        lambda c: HermesSessionSource(Platform.SLACK, c, chat_type="channel", user_id="U1", scope_id="T1"),
        lambda c: HermesSessionSource(Platform.SIGNAL, "", user_id="+1555", user_id_alt=f"uuid:{c}"),
        lambda c: HermesSessionSource(Platform.WHATSAPP, f"+{int(c, 16)}:12@s.whatsapp.net"),
        lambda c: HermesSessionSource(Platform.TELEGRAM, c, profile="work"),
    ],
)
def test_generate_session_key_is_the_key_the_service_gives(hermes_store: LedgerSessionStore, chat_id: str, make: Any) -> None:
    source = make(chat_id)

    assert hermes_store._generate_session_key(source) == hermes_store.get_or_create_session(source).session_key


def test_model_override_is_kept_with_the_session_without_credentials(hermes_store: LedgerSessionStore, chat_id: str) -> None:
    key = hermes_store.get_or_create_session(telegram_dm(chat_id)).session_key

    assert hermes_store.get_model_override(key) is None
    hermes_store.set_model_override(key, {"model": "m-1", "provider": "p", "api_key": "sk-secret", "base_url": ""})
    assert hermes_store.get_model_override(key) == {"model": "m-1", "provider": "p"}
    hermes_store.set_model_override(key, None)
    assert hermes_store.get_model_override(key) is None
    hermes_store.set_model_override(key, {"model": "m-2"})
    hermes_store.reset_session(key)
    assert hermes_store.get_model_override(key) is None, "a new session starts without the override"
    assert hermes_store.get_model_override("agent:main:telegram:dm:nobody") is None
    hermes_store.set_model_override("agent:main:telegram:dm:nobody", {"model": "x"})


def test_expiry_finalized_is_set_on_hermes_entry_and_answered_after(hermes_store: LedgerSessionStore, chat_id: str) -> None:
    entry = hermes_store.get_or_create_session(telegram_dm(chat_id))
    hermes_store.set_model_override(entry.session_key, {"model": "m-1"})
    hermes = hermes_entry_of(entry, model_override={"model": "m-1"})

    hermes_store.set_expiry_finalized(hermes)

    assert hermes.expiry_finalized is True and hermes.model_override is None
    assert hermes_store.get_model_override(entry.session_key) is None
    assert hermes_store.lookup_by_session_key(entry.session_key).expiry_finalized is True  # type: ignore[union-attr]
    assert hermes_store._entries[entry.session_key].expiry_finalized is True
    kept = hermes_store.set_model_override(entry.session_key, {"model": "m-2"})
    hermes_store.set_expiry_finalized(hermes_entry_of(entry), clear_model_override=False)
    assert kept is None and hermes_store.get_model_override(entry.session_key) == {"model": "m-2"}


def test_finalizable_and_expired_follow_the_configured_policy(ledger_url: str, hermes_store: LedgerSessionStore, chat_id: str) -> None:
    entry = hermes_store.get_or_create_session(telegram_dm(chat_id))
    fresh = hermes_entry_of(entry)
    stale = hermes_entry_of(entry, updated_at=datetime.now() - timedelta(minutes=61))
    slack = hermes_entry_of(entry, platform=Platform.SLACK)

    assert hermes_store.is_session_finalizable(fresh) is True and hermes_store.is_session_finalizable(slack) is False
    assert hermes_store._is_session_expired(fresh) is False and hermes_store._is_session_expired(stale) is True
    assert hermes_store._is_session_expired(slack) is False
    assert LedgerSessionStore(ledger_url).is_session_finalizable(fresh) is False, "no config: never finalized"

    busy = LedgerSessionStore(ledger_url, config=hermes_store.config, has_active_processes_fn=lambda key: key == entry.session_key)
    assert busy._is_session_expired(stale) is False

    def unsure(key: str) -> bool:
        raise RuntimeError("registry down")

    assert LedgerSessionStore(ledger_url, config=hermes_store.config, has_active_processes_fn=unsure)._is_session_expired(stale) is False


def test_has_platform_message_id(hermes_store: LedgerSessionStore, chat_id: str) -> None:
    session_id = hermes_store.get_or_create_session(telegram_dm(chat_id)).session_id
    hermes_store.append_to_transcript(session_id, {"role": "user", "content": "hi", "platform_message_id": "m-1"})
    hermes_store.append_to_transcript(session_id, {"role": "user", "content": "again", "message_id": "m-2"})

    assert hermes_store.has_platform_message_id(session_id, "m-1") is True
    assert hermes_store.has_platform_message_id(session_id, "m-2") is True
    assert hermes_store.has_platform_message_id(session_id, "m-3") is False
    assert hermes_store.has_platform_message_id("20990101_000000_deadbeef", "m-1") is False


def test_entries_and_config_as_hermes_gateway_reads_them(hermes_store: LedgerSessionStore, config: GatewayConfig, chat_id: str) -> None:
    entry = hermes_store.get_or_create_session(telegram_dm(chat_id))

    hermes_store._ensure_loaded()
    assert entry.session_key in hermes_store._entries
    assert hermes_store._entries.get(entry.session_key).session_id == entry.session_id  # type: ignore[union-attr]
    assert hermes_store._entries.get("agent:main:telegram:dm:nobody") is None
    assert "agent:main:telegram:dm:nobody" not in hermes_store._entries
    assert entry.session_key in dict(hermes_store._entries.items())
    assert hermes_store.config is config


def test_signatures_are_hermes() -> None:
    expected = {
        "get_or_create_session": ["source", "force_new", "touch_activity"],
        "update_session": ["session_key", "last_prompt_tokens", "touch_activity"],
        "reset_session": ["session_key", "display_name"],
        "switch_session": ["session_key", "target_session_id"],
        "set_model_override": ["session_key", "override"],
        "get_model_override": ["session_key"],
        "set_expiry_finalized": ["entry", "clear_model_override"],
        "is_session_finalizable": ["entry"],
        "has_platform_message_id": ["session_id", "platform_message_id"],
        "has_any_sessions": [],
        "_generate_session_key": ["source"],
        "_is_session_expired": ["entry"],
    }
    for name, parameters in expected.items():
        signature = inspect.signature(getattr(LedgerSessionStore, name))
        assert list(signature.parameters)[1:] == parameters, name
    assert inspect.signature(LedgerSessionStore.set_expiry_finalized).parameters["clear_model_override"].kind is inspect.Parameter.KEYWORD_ONLY
