"""Where a message came from, under Hermes' field names (``gateway/session.py``'s ``SessionSource``)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Mapping, Optional

# Hermes' snake_case names and the service's camelCase names of the fields both know.
LEDGER_FIELD_NAMES = {
    "chat_id": "chatId",
    "chat_name": "chatName",
    "chat_type": "chatType",
    "user_id": "userId",
    "user_name": "userName",
    "thread_id": "threadId",
    "chat_topic": "chatTopic",
    "user_id_alt": "userIdAlt",
    "chat_id_alt": "chatIdAlt",
    "is_bot": "isBot",
    "parent_chat_id": "parentChatId",
    "message_id": "messageId",
    "role_authorized": "roleAuthorized",
}


def platform_name(platform: Any) -> str:
    """Hermes passes its ``Platform`` enum; anything with a ``value`` (or a plain string) will do."""
    return str(getattr(platform, "value", platform))


@dataclass
class SessionSource:
    """A message's origin. Positional order and defaults are Hermes', so ``SessionSource(platform, chat_id)`` works.

    ``platform`` may be Hermes' ``Platform`` enum or a string. ``scope_id`` and its deprecated alias ``guild_id``
    mirror each other as in Hermes; the service stores them as ``guildId``. ``profile`` becomes the key's
    ``agent:<profile>`` namespace. The Discord auto-thread fields and the relay flag stay on this side: the service
    does not key on them.
    """

    platform: Any
    chat_id: Optional[str] = None
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

    @property
    def agent(self) -> Optional[str]:
        """The key namespace the service should use (``agent:<name>:``): None for Hermes' default profile."""
        return None if not self.profile or self.profile == "default" else self.profile

    def to_ledger(self) -> dict[str, Any]:
        """The service's ``source`` object: camelCase, absent fields left out."""
        source: dict[str, Any] = {"platform": platform_name(self.platform)}
        for hermes_name, ledger_name in LEDGER_FIELD_NAMES.items():
            value = getattr(self, hermes_name)
            if value is None or value == "":
                continue
            source[ledger_name] = value if isinstance(value, bool) else str(value)
        if self.scope_id:
            source["guildId"] = str(self.scope_id)
        return source

    @classmethod
    def coerce(cls, source: Any) -> "SessionSource":
        """This class from anything with Hermes' ``SessionSource`` attribute names: Hermes' own class (its
        ``Platform`` enum included), a look-alike, or this class itself. An attribute the object lacks takes
        Hermes' default, as Hermes' own duck-typed readers do."""
        if isinstance(source, cls):
            return source
        if isinstance(source, Mapping):
            raise TypeError("a mapping is not a SessionSource: use SessionSource.from_dict (Hermes' layout) or from_ledger")
        if getattr(source, "platform", None) is None:
            raise TypeError(f"{type(source).__name__} has no platform: not a SessionSource")
        values = {spec.name: getattr(source, spec.name) for spec in fields(cls) if hasattr(source, spec.name)}
        values["platform"] = platform_name(values["platform"])
        for name in ("chat_id", "user_id", "user_id_alt", "chat_id_alt", "thread_id", "scope_id", "guild_id", "parent_chat_id", "message_id"):
            if values.get(name) is not None and not isinstance(values[name], str):
                values[name] = str(values[name])
        return cls(**values)

    @classmethod
    def from_ledger(cls, source: Mapping[str, Any]) -> "SessionSource":
        values: dict[str, Any] = {
            hermes: source.get(ledger) for hermes, ledger in LEDGER_FIELD_NAMES.items() if source.get(ledger) is not None
        }
        return cls(platform=source.get("platform"), scope_id=source.get("guildId"), **values)

    def to_dict(self) -> dict[str, Any]:
        """Hermes' ``SessionSource.to_dict()`` layout (what its ``sessions.json`` stores as ``origin``)."""
        result: dict[str, Any] = {"platform": platform_name(self.platform)}
        for name in ("chat_id", "chat_name", "chat_type", "user_id", "user_name", "thread_id", "chat_topic"):
            result[name] = getattr(self, name)
        result.update((name, value) for name in ("user_id_alt", "chat_id_alt") if (value := getattr(self, name)))
        if self.scope_id:
            result["scope_id"] = result["guild_id"] = self.scope_id
        result.update((name, value) for name in ("parent_chat_id", "message_id", "profile") if (value := getattr(self, name)))
        if self.auto_thread_created:
            result["auto_thread_created"] = True
        tail = ("auto_thread_initial_name", "prospective_thread_id")
        result.update((name, value) for name in tail if (value := getattr(self, name)))
        return result

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "SessionSource":
        """Reads Hermes' ``to_dict()`` layout back."""
        names = (
            "chat_name", "user_id", "user_name", "thread_id", "chat_topic", "user_id_alt", "chat_id_alt",
            "parent_chat_id", "message_id", "profile", "auto_thread_initial_name", "prospective_thread_id",
        )  # fmt: skip
        chat_id = data.get("chat_id")
        plain: dict[str, Any] = {name: data.get(name) for name in names}
        return cls(
            platform=data["platform"],
            chat_id=None if chat_id is None else str(chat_id),
            chat_type=data.get("chat_type") or "dm",
            is_bot=bool(data.get("is_bot", False)),
            role_authorized=bool(data.get("role_authorized", False)),
            scope_id=data.get("scope_id", data.get("guild_id")),
            auto_thread_created=bool(data.get("auto_thread_created", False)),
            **plain,
        )
