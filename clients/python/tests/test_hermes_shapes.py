"""Hermes' shapes and the service's, converted both ways (no service needed)."""

from __future__ import annotations

import errno
import urllib.error

from session_ledger import SessionEntry, SessionSource
from session_ledger.hermes_messages import from_ledger_message, to_ledger_message
from session_ledger.retry_policy import AnswerFailure, NetworkFailure, RetryOptions, never_connected, retry_delay, should_retry


def test_a_source_takes_hermes_positional_order_and_speaks_the_service_names() -> None:
    source = SessionSource("discord", "998877", "general", "group", "42", "Bob", "t1", guild_id="g1", is_bot=True)

    assert source.scope_id == "g1", "scope_id and guild_id mirror each other, as in Hermes"
    assert source.to_ledger() == {
        "platform": "discord",
        "chatId": "998877",
        "chatName": "general",
        "chatType": "group",
        "userId": "42",
        "userName": "Bob",
        "threadId": "t1",
        "isBot": True,
        "guildId": "g1",
        "roleAuthorized": False,
    }
    assert SessionSource.from_ledger(source.to_ledger()) == source


def test_a_source_reads_and_writes_hermes_dict_layout() -> None:
    stored = {
        "platform": "slack", "chat_id": "C1", "chat_name": None, "chat_type": "thread", "user_id": "U1",
        "user_name": None, "thread_id": "1700.1", "chat_topic": None, "scope_id": "T1", "guild_id": "T1",
    }  # fmt: skip

    source = SessionSource.from_dict(stored)

    assert source.to_dict() == stored
    assert SessionSource("telegram", "1", profile="coder").agent == "coder"
    assert SessionSource("telegram", "1", profile="default").agent is None


def test_hermes_messages_round_trip_through_the_service_shape() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function"}],
        "reasoning": "because",
        "timestamp": 1764600000.25,
        "codex_reasoning_items": None,
    }

    converted = to_ledger_message(message)

    assert converted == {
        "role": "assistant",
        "content": None,
        "toolCalls": [{"id": "c1", "type": "function"}],
        "metadata": {"hermes": {"reasoning": "because", "timestamp": 1764600000.25, "codex_reasoning_items": None}},
    }
    assert from_ledger_message(converted) == message
    assert to_ledger_message({"role": "session_meta", "tools": []}) is None


def test_messages_written_by_other_clients_read_with_hermes_names() -> None:
    written = {"role": "tool", "content": "ok", "toolCallId": "c1", "name": "shell", "metadata": {"at": "x"}, "index": 3}

    assert from_ledger_message(written) == {"role": "tool", "content": "ok", "tool_call_id": "c1", "tool_name": "shell"}


def test_an_entry_from_the_service_has_hermes_fields_and_local_naive_times() -> None:
    entry = SessionEntry.from_ledger(
        {
            "sessionKey": "agent:main:telegram:dm:1", "sessionId": "20260101_000000_bbbbbbbb",
            "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:05:00.000Z",
            "origin": {"platform": "telegram", "chatType": "dm", "chatId": "1"}, "displayName": None,
            "platform": "telegram", "chatType": "dm", "suspended": False, "resumePending": False,
            "wasAutoReset": True, "autoResetReason": "suspended", "resetHadActivity": True,
            "sessionIds": ["20260101_000000_aaaaaaaa", "20260101_000000_bbbbbbbb"], "totalTokens": 5,
            "lastResumeMarkedAt": None, "turnCount": 2, "gatewayId": "gw",
        }
    )  # fmt: skip

    assert entry.created_at.tzinfo is None and (entry.updated_at - entry.created_at).total_seconds() == 300
    assert entry.prev_session_id == "20260101_000000_aaaaaaaa" and entry.total_tokens == 5
    hermes = entry.to_dict()
    assert hermes["origin"]["chat_id"] == "1" and hermes["prev_session_id"] == "20260101_000000_aaaaaaaa"
    assert {"active_turn_token", "last_resume_marked_at", "is_fresh_reset", "metadata"} <= set(hermes)


def test_the_retry_policy_is_the_typescript_clients() -> None:
    assert should_retry(NetworkFailure(connected=False), safe_to_repeat=False)
    assert not should_retry(NetworkFailure(connected=True), safe_to_repeat=False)
    assert should_retry(NetworkFailure(connected=True), safe_to_repeat=True)
    assert should_retry(AnswerFailure(409, "WRONG_EXPECTED_REVISION"), safe_to_repeat=False)
    assert should_retry(AnswerFailure(409, "IDEMPOTENCY_KEY_IN_USE"), safe_to_repeat=True)
    assert not should_retry(AnswerFailure(409, "ALREADY_FIRED"), safe_to_repeat=True)
    assert not should_retry(AnswerFailure(429, "QUEUE_FULL"), safe_to_repeat=True)
    assert should_retry(AnswerFailure(503, "PROJECTION_NOT_CAUGHT_UP"), safe_to_repeat=False)
    assert not should_retry(AnswerFailure(503, "DATABASE_UNAVAILABLE"), safe_to_repeat=False)
    assert should_retry(AnswerFailure(503, "DATABASE_UNAVAILABLE"), safe_to_repeat=True)
    options = RetryOptions(base_delay=0.1, max_delay=2.0)
    assert retry_delay(0, options, lambda: 0.0) == 0.05 and retry_delay(10, options, lambda: 1.0) == 2.0
    assert never_connected(urllib.error.URLError(ConnectionRefusedError(errno.ECONNREFUSED, "refused")))
    assert not never_connected(ConnectionResetError(errno.ECONNRESET, "reset"))


def test_an_entry_names_its_reset_reason_as_hermes_does() -> None:
    base = {"sessionKey": "agent:main:telegram:dm:1", "sessionId": "20260101_000000_aaaaaaaa", "createdAt": "2026-01-01T00:00:00Z",
            "updatedAt": "2026-01-01T00:00:00Z", "wasAutoReset": True}  # fmt: skip

    names = {
        reason: SessionEntry.from_ledger({**base, "autoResetReason": reason}).auto_reset_reason
        for reason in ("resume_expired", "forced", "idle", "daily", "suspended")
    }

    assert names == {
        "resume_expired": "resume_pending_expired",
        "forced": "session_reset",
        "idle": "idle",
        "daily": "daily",
        "suspended": "suspended",
    }
