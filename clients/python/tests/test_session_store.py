"""LedgerSessionStore keeps Hermes' SessionStore behaviour, against the real service."""

from __future__ import annotations

import enum
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from conftest import TENANT_TOKENS
from session_ledger import LedgerClient, LedgerSessionStore, SessionEntry, SessionSource


class Platform(enum.Enum):
    """Stands for Hermes' own enum: the store takes anything with a ``value``."""

    TELEGRAM = "telegram"
    DISCORD = "discord"


def dm(chat_id: str) -> SessionSource:
    return SessionSource(Platform.TELEGRAM, chat_id, chat_name="Alice", user_id=f"u-{chat_id}", user_name="Alice")


def test_get_or_create_answers_a_hermes_session_entry_and_finds_it_again(store: LedgerSessionStore, chat_id: str) -> None:
    entry = store.get_or_create_session(dm(chat_id))
    again = store.get_or_create_session(dm(chat_id))

    assert isinstance(entry, SessionEntry)
    assert entry.session_key == f"agent:main:telegram:dm:{chat_id}" and again.session_id == entry.session_id
    assert entry.platform == "telegram" and entry.chat_type == "dm" and entry.display_name == "Alice"
    assert entry.origin is not None and entry.origin.user_id == f"u-{chat_id}" and entry.origin.platform == "telegram"
    assert entry.created_at.tzinfo is None and abs(datetime.now() - entry.created_at) < timedelta(minutes=5)
    assert entry.to_dict()["origin"]["chat_id"] == chat_id and entry.gateway_id == store.gateway_id


def test_concurrent_first_messages_get_one_session(store: LedgerSessionStore, chat_id: str) -> None:
    ids: list[str] = []
    threads = [threading.Thread(target=lambda: ids.append(store.get_or_create_session(dm(chat_id)).session_id)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(ids) == 8 and len(set(ids)) == 1


def test_force_new_starts_a_new_session(store: LedgerSessionStore, chat_id: str) -> None:
    first = store.get_or_create_session(dm(chat_id))
    forced = store.get_or_create_session(dm(chat_id), force_new=True)

    assert forced.session_id != first.session_id and forced.session_key == first.session_key


def test_stop_then_next_message_replaces_the_session_and_says_why(store: LedgerSessionStore, chat_id: str) -> None:
    first = store.get_or_create_session(dm(chat_id))
    store.append_to_transcript(first.session_id, {"role": "user", "content": "stuck"})

    assert store.suspend_session(first.session_key) is True
    assert store.lookup_by_session_key(first.session_key).suspended is True  # type: ignore[union-attr]
    assert store.mark_resume_pending(first.session_key) is False, "a resume mark never overrides a suspension"
    replaced = store.get_or_create_session(dm(chat_id))

    assert replaced.session_id != first.session_id
    assert (replaced.was_auto_reset, replaced.auto_reset_reason, replaced.prev_session_id) == (True, "suspended", first.session_id)
    assert replaced.suspended is False
    assert store.suspend_session("agent:main:telegram:dm:nobody") is False


def test_a_resume_mark_keeps_the_session_until_cleared(store: LedgerSessionStore, chat_id: str) -> None:
    first = store.get_or_create_session(dm(chat_id))

    assert store.mark_resume_pending(first.session_key, "restart_timeout") is True
    resumed = store.get_or_create_session(dm(chat_id))
    assert resumed.session_id == first.session_id
    assert (resumed.resume_pending, resumed.resume_reason) == (True, "restart_timeout")
    assert resumed.last_resume_marked_at is not None and resumed.last_resume_marked_at.tzinfo is None
    assert store.clear_resume_pending(first.session_key) is True
    assert store.clear_resume_pending(first.session_key) is False
    assert store.mark_resume_pending("agent:main:telegram:dm:nobody") is False


def test_reset_and_switch(store: LedgerSessionStore, chat_id: str) -> None:
    first = store.get_or_create_session(dm(chat_id))
    other = store.get_or_create_session(dm(f"{chat_id}-other"))

    reset = store.reset_session(first.session_key)
    assert reset is not None and reset.session_id != first.session_id and reset.is_fresh_reset is True
    assert reset.display_name == "Alice" and reset.origin is not None
    # The gateway's message handler reads the flag on the first message after /reset, once.
    assert store.get_or_create_session(dm(chat_id)).is_fresh_reset is True
    assert store.get_or_create_session(dm(chat_id)).is_fresh_reset is False
    renamed = store.reset_session(first.session_key, display_name="Project Phoenix")
    assert renamed is not None and renamed.display_name == "Project Phoenix"

    back = store.switch_session(first.session_key, first.session_id)
    assert back is not None and back.session_id == first.session_id
    assert store.switch_session(first.session_key, first.session_id).session_id == first.session_id  # type: ignore[union-attr]
    assert store.switch_session(first.session_key, other.session_id) is None, "not a session of this conversation"
    assert store.reset_session("agent:main:telegram:dm:nobody") is None
    assert store.switch_session("agent:main:telegram:dm:nobody", first.session_id) is None


def test_transcripts_come_back_as_they_were_appended(store: LedgerSessionStore, chat_id: str, client: LedgerClient) -> None:
    session_id = store.get_or_create_session(dm(chat_id)).session_id
    meta = {"role": "session_meta", "tools": [{"type": "function", "function": {"name": "terminal"}}], "model": "m", "platform": "telegram"}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "list files", "timestamp": 1764600000.5, "platform_message_id": "77"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}],
            "reasoning": "use the terminal",
            "finish_reason": "tool_calls",
        },
        {"role": "tool", "content": "a.txt", "tool_call_id": "call_1", "tool_name": "terminal"},
        {"role": "assistant", "content": [{"type": "text", "text": "a.txt"}]},
    ]
    assert store.load_transcript(session_id) == []
    store.append_to_transcript(session_id, meta)
    for message in messages:
        store.append_to_transcript(session_id, message)
    store.append_to_transcript(session_id, {"role": "user", "content": "skipped"}, skip_db=True)

    assert store.load_transcript(session_id) == messages
    memory = client.get_memory(session_id)["entries"]
    assert [(entry["name"], entry["value"]) for entry in memory] == [("hermes.session_meta", meta)]
    tool = client.get_transcript(session_id)["messages"][2]
    assert (tool["role"], tool["toolCallId"], tool["name"]) == ("tool", "call_1", "terminal")
    assert store.load_transcript("20200101_000000_00000000") == []


def test_rewrite_and_rewind(store: LedgerSessionStore, chat_id: str, client: LedgerClient) -> None:
    session_id = store.get_or_create_session(dm(chat_id)).session_id
    assert store.rewind_session(session_id) is None, "nothing to rewind yet"
    for text in ("one", "two", "three"):
        store.append_to_transcript(session_id, {"role": "user", "content": text})
        store.append_to_transcript(session_id, {"role": "assistant", "content": f"re {text}"})

    undone = store.rewind_session(session_id, 2)
    assert undone == {"rewound_count": 4, "turns_undone": 2, "target_text": "two"}
    assert [message["content"] for message in store.load_transcript(session_id)] == ["one", "re one"]

    compressed = [{"role": "user", "content": "summary: one"}, {"role": "assistant", "content": "ok", "reasoning": "r"}]
    assert store.rewrite_transcript(session_id, compressed) is True
    assert store.load_transcript(session_id) == compressed
    kept = client.get_transcript(session_id, include_deleted=True)["messages"]
    assert len(kept) == 8, "rewound and rewritten-away messages stay in history, soft-deleted"
    assert store.rewrite_transcript("20200101_000000_00000000", compressed) is False


def test_update_session_sets_the_last_prompt_size_without_a_turn(store: LedgerSessionStore, client: LedgerClient, chat_id: str) -> None:
    entry = store.get_or_create_session(dm(chat_id))
    store.append_to_transcript(entry.session_id, {"role": "user", "content": "hi"})

    store.update_session(entry.session_key, last_prompt_tokens=1234)
    store.update_session(entry.session_key, last_prompt_tokens=1234)
    store.update_session(entry.session_key)
    store.update_session("agent:main:telegram:dm:nobody", last_prompt_tokens=1)

    found = store.lookup_by_session_id(entry.session_id)
    assert found is not None and found.last_prompt_tokens == 1234
    assert found.turn_count == 1, "the count is set on the entry, not recorded as a turn"
    assert store.load_transcript(entry.session_id) == [{"role": "user", "content": "hi"}]
    types = [event["type"] for event in client.session_events(entry.session_id)["events"]]
    assert types.count("LastPromptTokensSet") == 1, "the same count again writes nothing"
    assert client.session_by_key(entry.session_key)["lastPromptTokens"] == 1234

    renewed = store.reset_session(entry.session_key)
    assert renewed is not None and renewed.last_prompt_tokens == 0
    store.update_session(entry.session_key, last_prompt_tokens=99)
    assert store.lookup_by_session_key(entry.session_key).last_prompt_tokens == 99  # type: ignore[union-attr]
    assert store.lookup_by_session_id(entry.session_id) is None
    assert client.get_session(entry.session_id)["counters"]["lastPromptTokens"] == 1234, "the ended session keeps its own"


def test_has_any_sessions_counts_every_session_of_the_store_ended_ones_included(tenanted_ledger_url: str, chat_id: str) -> None:
    first = LedgerSessionStore(tenanted_ledger_url, TENANT_TOKENS["first"], gateway_id="pytest-first")
    second = LedgerSessionStore(tenanted_ledger_url, TENANT_TOKENS["second"], gateway_id="pytest-second")
    assert first.has_any_sessions() is False

    entry = first.get_or_create_session(dm(chat_id))
    assert first.has_any_sessions() is False, "Hermes asks right after creating the first one: that one does not count"
    first.reset_session(entry.session_key)
    assert first.has_any_sessions() is True, "the ended session counts, as in Hermes' state.db"
    assert second.has_any_sessions() is False, "another tenant's sessions are another store's"

    # A subagent's session is a session of the store too, though no routing entry points at it.
    only = second.get_or_create_session(dm(chat_id))
    assert second.has_any_sessions() is False
    second.client.create_child(only.session_id, "researcher")
    assert second.has_any_sessions() is True


def test_lookups_and_listing(store: LedgerSessionStore, chat_id: str) -> None:
    first = store.get_or_create_session(dm(chat_id))
    group = store.get_or_create_session(SessionSource(Platform.DISCORD, chat_id, chat_type="group", user_id="7"))
    replaced = store.reset_session(first.session_key)
    assert replaced is not None

    assert store.lookup_by_session_id(replaced.session_id).session_key == first.session_key  # type: ignore[union-attr]
    assert store.lookup_by_session_id(first.session_id) is None, "no longer any entry's current session"
    assert store.lookup_by_session_id("20200101_000000_00000000") is None
    assert store.peek_session_id(group.session_key) == group.session_id
    listed = store.list_sessions(active_minutes=10)
    keys = [entry.session_key for entry in listed]
    assert {first.session_key, group.session_key} <= set(keys)
    assert [entry.updated_at for entry in listed] == sorted((entry.updated_at for entry in listed), reverse=True)
    assert group.session_key == f"agent:main:discord:group:{chat_id}:7"
    assert store.has_any_sessions() is True


def test_isolation_settings_come_from_hermes_config(ledger_url: str, chat_id: str) -> None:
    @dataclass
    class GatewayConfig:
        group_sessions_per_user: bool = False

    shared = LedgerSessionStore(ledger_url, config=GatewayConfig())
    alice = shared.get_or_create_session(SessionSource("discord", chat_id, chat_type="group", user_id="1"))
    bob = shared.get_or_create_session(SessionSource("discord", chat_id, chat_type="group", user_id="2"))

    assert alice.session_key == bob.session_key == f"agent:main:discord:group:{chat_id}"
    assert alice.session_id == bob.session_id


def test_after_a_crash_recently_active_entries_are_marked_for_resume(store: LedgerSessionStore, chat_id: str) -> None:
    active = store.get_or_create_session(dm(chat_id))
    stopped = store.get_or_create_session(dm(f"{chat_id}-stopped"))
    store.suspend_session(stopped.session_key)

    marked = store.suspend_recently_active(max_age_seconds=600)

    assert marked >= 1
    after = store.lookup_by_session_key(active.session_key)
    assert after is not None and (after.resume_pending, after.resume_reason) == (True, "restart_interrupted")
    assert store.lookup_by_session_key(stopped.session_key).resume_pending is False  # type: ignore[union-attr]
    assert store.suspend_recently_active(max_age_seconds=600) == 0, "already marked ones are skipped"


def test_prune_old_entries(store: LedgerSessionStore, chat_id: str) -> None:
    entry = store.get_or_create_session(dm(chat_id))

    assert store.prune_old_entries(0) == 0
    assert store.prune_old_entries(30) == 0, "a fresh entry is not idle for 30 days"
    assert store.lookup_by_session_key(entry.session_key) is not None


@dataclass
class ResetPolicy:
    """Stands for Hermes' ``SessionResetPolicy``: the store sends its ``to_dict()``."""

    mode: str = "none"
    idle_minutes: float = 1440

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "at_hour": 4, "idle_minutes": self.idle_minutes, "notify": True, "notify_exclude_platforms": ["api_server", "webhook"]}


@dataclass
class ResetConfig:
    """Stands for Hermes' ``GatewayConfig``: ``get_reset_policy`` picks by platform and chat type."""

    policy: ResetPolicy

    def get_reset_policy(self, platform: Any = None, session_type: Any = None) -> ResetPolicy:
        return self.policy


def test_an_idle_reset_policy_replaces_the_session_with_hermes_auto_reset_fields(ledger_url: str, chat_id: str) -> None:
    # Half a second of inactivity: the service measures it on its own clock, so the test waits past it.
    store = LedgerSessionStore(ledger_url, config=ResetConfig(ResetPolicy(mode="idle", idle_minutes=0.5 / 60)))
    first = store.get_or_create_session(dm(chat_id))
    store.append_to_transcript(first.session_id, {"role": "user", "content": "remember this"})
    assert store.client.get_conversation(first.session_key)["resetPolicy"]["mode"] == "idle"  # type: ignore[index]
    threading.Event().wait(1.0)

    replaced = store.get_or_create_session(dm(chat_id))

    assert replaced.session_id != first.session_id
    assert (replaced.was_auto_reset, replaced.auto_reset_reason, replaced.reset_had_activity) == (True, "idle", True)
    assert replaced.prev_session_id == first.session_id
    assert replaced.reset_notice is not None and "inactivity" in replaced.reset_notice


def test_a_live_background_process_keeps_the_session(ledger_url: str, chat_id: str) -> None:
    started = datetime.now()
    store = LedgerSessionStore(
        ledger_url,
        config=ResetConfig(ResetPolicy(mode="idle", idle_minutes=0.5 / 60)),
        background_process_since_fn=lambda source: started,
    )
    first = store.get_or_create_session(dm(chat_id))
    threading.Event().wait(1.0)

    kept = store.get_or_create_session(dm(chat_id))

    assert kept.session_id == first.session_id and kept.was_auto_reset is False


def test_a_route_the_service_lacks_is_an_error_not_a_missing_entry() -> None:
    # A client newer than the service it calls: ROUTE_NOT_FOUND must surface, never read as "no such session".
    from session_ledger.errors import LedgerError
    from session_ledger.store import _missing

    assert _missing(LedgerError(404, "CONVERSATION_NOT_FOUND", "no conversation"))
    assert _missing(LedgerError(404, "SESSION_NOT_FOUND", "no session"))
    assert not _missing(LedgerError(404, "ROUTE_NOT_FOUND", "no route GET /v1/conversations/x/entry"))
    assert not _missing(LedgerError(409, "SESSION_ENDED", "ended"))
