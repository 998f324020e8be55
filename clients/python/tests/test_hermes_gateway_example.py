"""examples/hermes-gateway against the real service: turns, the queue while busy, /new, and recovery after a crash."""

from __future__ import annotations

import sys
import threading
import uuid
from pathlib import Path
from typing import Any

from session_ledger import LedgerSessionStore, SessionSource

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "hermes-gateway"))

from hermes_gateway import HermesGateway, echo_agent  # noqa: E402


class Outbox:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def __call__(self, source: SessionSource, text: str) -> None:
        with self._lock:
            self.sent.append((str(source.chat_id), text))


def test_turns_queue_while_busy_and_new(ledger_url: str, chat_id: str) -> None:
    release = threading.Event()

    def slow_agent(history: list[dict[str, Any]]) -> str:
        release.wait(30)
        return echo_agent(history)

    outbox = Outbox()
    store = LedgerSessionStore(ledger_url, gateway_id=f"example-{uuid.uuid4().hex[:8]}")
    gateway = HermesGateway(store, slow_agent, outbox)
    gateway.start()
    source = SessionSource("console", chat_id, user_name="alice")

    gateway.handle(source, "first")
    gateway.handle(source, "second")
    assert store.client.get_queue(f"agent:main:console:dm:{chat_id}")["depth"] == 1, "the busy chat queues"
    release.set()
    gateway.wait_idle()
    gateway.handle(source, "/new")
    gateway.stop()

    assert outbox.sent == [
        (chat_id, "echo: first (1 so far)"),
        (chat_id, "echo: second (2 so far)"),
        (chat_id, "started a new session"),
    ]
    entry = store.get_or_create_session(source)
    assert len(entry.session_ids) == 2
    previous = store.load_transcript(entry.session_ids[0])
    assert [message["content"] for message in previous] == ["first", "echo: first (1 so far)", "second", "echo: second (2 so far)"]


def test_after_a_crash_the_next_gateway_answers_what_was_left_in_the_same_session(ledger_url: str, chat_id: str) -> None:
    gateway_id = f"example-{uuid.uuid4().hex[:8]}"
    crashed = threading.Event()
    never = threading.Event()

    def agent_that_crashes(history: list[dict[str, Any]]) -> str:
        crashed.set()
        never.wait(60)
        raise RuntimeError("this process is gone")

    first = HermesGateway(LedgerSessionStore(ledger_url, gateway_id=gateway_id), agent_that_crashes, Outbox())
    first.start()
    source = SessionSource("console", chat_id, user_name="bob")
    first.handle(source, "summarise my notes")
    assert crashed.wait(30)
    first.handle(source, "and send them to me")
    # The process dies here: no stop, no clean-shutdown marker. Its worker stays blocked and is abandoned.

    outbox = Outbox()
    store = LedgerSessionStore(ledger_url, gateway_id=gateway_id)
    second = HermesGateway(store, echo_agent, outbox)
    second.start()
    second.wait_idle()
    second.stop()
    never.set()

    key = f"agent:main:console:dm:{chat_id}"
    assert second.resumed == [key]
    assert outbox.sent == [
        (chat_id, "echo: summarise my notes (1 so far)"),
        (chat_id, "echo: and send them to me (2 so far)"),
    ]
    entry = store.get_or_create_session(source)
    assert len(entry.session_ids) == 1, "recovered in the same session"
    assert [message["role"] for message in store.load_transcript(entry.session_id)] == ["user", "assistant"] * 2
    assert store.client.get_queue(key)["depth"] == 0
