"""Hermes' session keys, worked out here from a source as the service works them out (docs/session-keys.md)."""

from __future__ import annotations

from typing import Any, Optional

from .source import SessionSource, platform_name


def canonical_whatsapp_id(value: Optional[str]) -> Optional[str]:
    """One WhatsApp number in its several spellings: a leading ``+``, a device suffix (``:12``) and the JID server
    (``@s.whatsapp.net``) dropped; an empty result counts as absent."""
    if not value:
        return None
    text = str(value)
    text = text[1:] if text.startswith("+") else text
    text = text.split(":", 1)[0].split("@", 1)[0]
    return text or None


def session_key_for(
    source: SessionSource,
    *,
    group_sessions_per_user: bool = True,
    thread_sessions_per_user: bool = False,
    agent: str = "main",
) -> str:
    """The key the service gives ``source`` (without ``SESSION_KEY_ESCAPE_IDS`` or WhatsApp aliases, which only
    the service knows): ``agent:<agent>:<platform>:<chat type>[:<slack workspace>][:<chat id>]...``."""
    platform = platform_name(source.platform)
    chat_type = source.chat_type or "dm"
    is_dm = chat_type == "dm"
    whatsapp = platform == "whatsapp"
    chat_id: Optional[str] = str(source.chat_id) if source.chat_id else None
    if is_dm and whatsapp:
        chat_id = canonical_whatsapp_id(chat_id)
    participant: Optional[str] = _text(source.user_id_alt) or _text(source.user_id)
    if participant and whatsapp:
        participant = canonical_whatsapp_id(participant) or participant
    thread = _text(source.thread_id)

    if is_dm:
        isolate = chat_id is None
    else:
        isolate = group_sessions_per_user and (thread is None or thread_sessions_per_user)
    parts = [f"agent:{source.agent or agent}", platform, chat_type]
    if platform == "slack" and source.scope_id:
        parts.append(str(source.scope_id))
    if chat_id:
        parts.append(chat_id)
    user = [participant] if isolate and participant else []
    threads = [thread] if thread else []
    parts += user + threads if is_dm else threads + user
    return ":".join(parts)


def _text(value: Any) -> Optional[str]:
    return str(value) if value not in (None, "") else None
