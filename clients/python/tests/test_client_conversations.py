"""LedgerClient against the real service: resolve, the conversation marks, context, queue, restart recovery, errors."""

from __future__ import annotations

import uuid

import pytest

from session_ledger import LedgerClient, LedgerError, SessionSource
from session_ledger.api_types import GatewayPlatformInput


def telegram_dm(chat_id: str, **fields: object) -> SessionSource:
    return SessionSource("telegram", chat_id, user_id=f"u{chat_id}", user_name="Alice", **fields)  # type: ignore[arg-type]


def test_resolve_creates_one_session_per_conversation_and_finds_it_again(client: LedgerClient, chat_id: str) -> None:
    first = client.resolve_session(telegram_dm(chat_id), gateway_id="gw-resolve")
    again = client.resolve_session({"platform": "telegram", "chatType": "dm", "chatId": chat_id})

    assert first["created"] is True and first["state"] == "cold"
    assert first["sessionKey"] == f"agent:main:telegram:dm:{chat_id}"
    assert first["entry"]["origin"]["userName"] == "Alice"
    assert first["entry"]["gatewayId"] == "gw-resolve"
    assert again["created"] is False and again["sessionId"] == first["sessionId"]
    assert client.position >= again["position"] > 0


def test_force_new_and_profile_namespace(client: LedgerClient, chat_id: str) -> None:
    first = client.resolve_session(telegram_dm(chat_id))
    forced = client.resolve_session(telegram_dm(chat_id), force_new=True)
    profiled = client.resolve_session(telegram_dm(chat_id, profile="coder"))

    assert forced["created"] is True and forced["sessionId"] != first["sessionId"]
    assert profiled["sessionKey"] == f"agent:coder:telegram:dm:{chat_id}"


def test_reset_switch_suspend_and_resume_marks(client: LedgerClient, chat_id: str) -> None:
    resolved = client.resolve_session(telegram_dm(chat_id))
    key, original = resolved["sessionKey"], resolved["sessionId"]

    reset = client.reset_conversation(key)
    assert reset["previousSessionId"] == original and reset["entry"]["isFreshReset"] is True

    switched = client.switch_session(key, original)
    assert switched["sessionId"] == original and switched["changed"] is True

    marked = client.mark_resume_pending(key, "restart_timeout")
    assert marked["entry"]["resumePending"] is True and marked["entry"]["resumeReason"] == "restart_timeout"
    cleared = client.clear_resume_pending(key)
    assert cleared["entry"]["resumePending"] is False

    client.suspend_conversation(key, "stop")
    assert client.get_conversation(key)["suspended"] is True
    with pytest.raises(LedgerError) as refused:
        client.mark_resume_pending(key, "restart_timeout")
    assert (refused.value.status, refused.value.code) == (409, "CONVERSATION_SUSPENDED")

    after = client.resolve_session(telegram_dm(chat_id))
    assert after["sessionId"] not in (original, reset["sessionId"])
    assert after["entry"]["wasAutoReset"] is True and after["entry"]["autoResetReason"] == "suspended"


def test_context_prompt_redacts_ids(client: LedgerClient, chat_id: str) -> None:
    key = client.resolve_session(SessionSource("telegram", chat_id, user_id="998877"))["sessionKey"]

    plain = client.conversation_context(key)
    redacted = client.conversation_context(key, redact_pii=True, connected_platforms=["telegram", "discord"])

    assert "998877" in plain["prompt"]
    assert redacted["redactPii"] is True and "998877" not in redacted["prompt"] and "user_" in redacted["prompt"]


def test_registered_platforms_reach_the_context_prompt_while_the_gateway_is_live(client: LedgerClient, chat_id: str) -> None:
    key = client.resolve_session(SessionSource("telegram", chat_id, user_id="998877"))["sessionKey"]
    gateway = f"py-registry-{chat_id}"
    platforms: list[GatewayPlatformInput] = [
        {"platform": "matrix", "displayName": "Matrix bridge", "homeChannel": {"chatId": "!ops:example.org", "name": "Ops"}}
    ]

    registered = client.gateway_platforms(gateway, platforms)
    assert registered["changed"] is True and registered["live"] is True
    assert registered["platforms"] == [
        {"platform": "matrix", "displayName": "Matrix bridge", "homeChannel": {"chatId": "!ops:example.org", "name": "Ops"}, "piiSafe": False}
    ]
    assert client.gateway_platforms(gateway, platforms)["changed"] is False

    prompt = client.conversation_context(key, min_position=registered["position"])["prompt"]
    assert 'matrix ("Matrix bridge")' in prompt and '  - matrix: "Ops" (ID: "!ops:example.org")' in prompt
    assert f'**Session key:** "{key}"' in prompt
    hermes = client.conversation_context(key, format="hermes", min_position=registered["position"])
    assert hermes["format"] == "hermes"
    assert '**Home Channels (default destinations):**\n  - matrix: "Ops" (ID: "!ops:example.org")' in hermes["prompt"]

    stopped = client.gateway_stopped(gateway)
    assert "matrix" not in client.conversation_context(key, min_position=stopped["position"])["prompt"]


def test_the_queue_keeps_arrival_order_joins_media_and_delivers_each_message_once(client: LedgerClient, chat_id: str) -> None:
    key = client.resolve_session(telegram_dm(chat_id))["sessionKey"]

    first = client.enqueue(key, {"text": "one"}, mode="interrupt")
    second = client.enqueue(key, {"text": "two"}, mode="interrupt")
    photo = client.enqueue(key, {"text": "and this", "media": ["b.png"]}, mode="interrupt")
    queued = client.enqueue(key, {"text": "three"}, mode="queue")
    again = client.enqueue(key, {"id": queued["messageId"], "text": "three"}, mode="queue")
    assert first["placement"] == "slot" and second["placement"] == "overflow" and second["coalescedInto"] is None
    assert photo["coalescedInto"] == first["messageId"], "media join the waiting follow-up next in line, as Hermes' pending slot"
    # No runtime turn runs, so nothing was asked to stop.
    assert first["interruptRequested"] is None
    assert queued["placement"] == "overflow" and again["placement"] == "overflow"
    assert client.get_queue(key)["depth"] == 3, "the same message sent again is queued once"

    taken = [client.next_queued(key) for _ in range(4)]
    assert [item and item["message"]["text"] for item in taken] == ["one\nand this", "two", "three", None]
    assert taken[0] is not None and taken[0]["from"] == "slot"


def test_restart_recovery_marks_what_a_drain_left_and_answers_it_on_start(client: LedgerClient, chat_id: str) -> None:
    gateway = f"gw-{uuid.uuid4().hex[:8]}"
    client.gateway_started(gateway, "boot-1")
    resolved = client.resolve_session(telegram_dm(chat_id), gateway_id=gateway)
    key = resolved["sessionKey"]
    client.record_turn(resolved["sessionId"], [{"role": "user", "content": "long task"}])

    stopping = client.gateway_stopping(gateway, [key], mode="restart")
    client.gateway_stopped(gateway, drain_timed_out=[key])
    started = client.gateway_started(gateway, "boot-2")
    replayed = client.gateway_started(gateway, "boot-2")

    assert stopping["marked"] == [key] or key in str(stopping["marked"])
    assert [target["sessionKey"] for target in started["resume"]] == [key]
    assert started["resume"][0]["reason"] == "restart_timeout"
    # The ledger continues by default, as Hermes does: one continuation waits at the head of the queue.
    assert replayed["replayed"] is True and started["continued"] == [key]


def test_auto_continue_queues_one_continuation_at_the_head(client: LedgerClient, chat_id: str) -> None:
    gateway = f"gw-{uuid.uuid4().hex[:8]}"
    key = client.resolve_session(telegram_dm(chat_id), gateway_id=gateway)["sessionKey"]
    client.enqueue(key, {"id": "task", "text": "summarise the thread"}, mode="queue")
    client.next_queued(key)
    client.gateway_stopping(gateway, [key], mode="restart")
    client.gateway_stopped(gateway, drain_timed_out=[key])
    client.enqueue(key, {"id": "waiting", "text": "hello?"}, mode="queue")

    started = client.gateway_started(gateway, "boot-ac", auto_continue=True)
    client.gateway_started(gateway, "boot-ac", auto_continue=True)

    assert started["continued"] == [key]
    taken = client.next_queued(key)
    assert taken is not None and taken["message"].get("kind") == "auto_continue"
    assert taken["message"].get("continuation") == {"reason": "restart_timeout", "bootId": "boot-ac", "interruptedText": "summarise the thread"}
    following = client.next_queued(key)
    assert following is not None and following["message"]["id"] == "waiting"


def test_errors_carry_status_code_message_and_request_id(client: LedgerClient) -> None:
    with pytest.raises(LedgerError) as missing:
        client.get_conversation("agent:main:telegram:dm:nobody-here")
    error = missing.value
    assert (error.status, error.code, error.operation) == (404, "CONVERSATION_NOT_FOUND", "get_conversation")
    assert error.message and error.request_id and error.request_id in str(error)

    with pytest.raises(LedgerError) as invalid:
        client.resolve_session({"platform": "telegram", "chatType": "not-a-type"})
    assert (invalid.value.status, invalid.value.code) == (400, "VALIDATION_FAILED")
