"""Hermes' transcript messages (OpenAI-style dicts, snake_case) as the service's messages, and back, losslessly."""

from __future__ import annotations

from typing import Any, Mapping, Optional

LEDGER_ROLES = frozenset({"system", "user", "assistant", "tool"})

# Hermes' key and the service's field for the parts of a message both have.
_MAPPED = {"tool_calls": "toolCalls", "tool_call_id": "toolCallId", "tool_name": "name"}
# Every other key of a Hermes message (reasoning, timestamp, platform_message_id, finish_reason, ...) travels in
# the message's metadata under this name and comes back as it went in.
HERMES_EXTRAS = "hermes"


def to_ledger_message(message: Mapping[str, Any]) -> Optional[dict[str, Any]]:
    """The service's message for a Hermes one; None for a role the transcript has no place for (``session_meta``)."""
    role = message.get("role")
    if role not in LEDGER_ROLES:
        return None
    converted: dict[str, Any] = {"role": role, "content": message.get("content")}
    extras: dict[str, Any] = {}
    for key, value in message.items():
        if key in ("role", "content"):
            continue
        ledger_name = _MAPPED.get(key)
        if ledger_name is None or value is None or (key == "tool_calls" and not isinstance(value, list)):
            extras[key] = value
        else:
            converted[ledger_name] = value
    if extras:
        converted["metadata"] = {HERMES_EXTRAS: extras}
    return converted


def from_ledger_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """A transcript message of the service as the dict Hermes' ``load_transcript`` answers."""
    restored: dict[str, Any] = {"role": message["role"], "content": message.get("content")}
    for hermes_name, ledger_name in _MAPPED.items():
        if message.get(ledger_name) is not None:
            restored[hermes_name] = message[ledger_name]
    metadata = message.get("metadata")
    if isinstance(metadata, Mapping) and isinstance(metadata.get(HERMES_EXTRAS), Mapping):
        restored.update(metadata[HERMES_EXTRAS])
    return restored
