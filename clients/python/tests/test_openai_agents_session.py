"""session_ledger.openai_agents.LedgerSession, the OpenAI Agents SDK's ``Session`` protocol kept by the ledger, against
the real service on each backend (embedded PGlite on disk; PostgreSQL too when TEST_DATABASE_URL is set)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import tempfile
import uuid
from typing import Any, Iterator

import pytest

from conftest import running_service
from fault_proxy import FaultProxy
from session_ledger import LedgerClient, LedgerUnavailableError, RetryOptions
from session_ledger.openai_agents import LedgerSession

FAST = RetryOptions(base_delay=0.02, max_delay=0.2, max_elapsed=10.0)
BACKENDS = ["pglite"] + (["postgres"] if os.environ.get("TEST_DATABASE_URL") else [])


class Ledger:
    """One backend's service, restartable: its data stays where it was (a directory, or PostgreSQL schemas)."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.settings: dict[str, str]
        if backend == "pglite":
            self.data_dir = tempfile.mkdtemp(prefix="ledger-pytest-agents-")
            self.settings = {"DATA_DIR": self.data_dir}
        else:
            self.schema = f"pyagents_{uuid.uuid4().hex[:10]}"
            self.settings = {
                "EVENT_STORE_URL": os.environ["TEST_DATABASE_URL"],
                "EVENT_STORE_SCHEMA": f"{self.schema}_es",
                "READ_MODEL_SCHEMA": f"{self.schema}_rm",
            }
        self._running: contextlib.ExitStack | None = None
        self.url = ""

    def start(self) -> None:
        self._running = contextlib.ExitStack()
        self.url = self._running.enter_context(running_service(**self.settings))

    def stop(self) -> None:
        if self._running is not None:
            self._running.close()
            self._running = None

    def remove(self) -> None:
        if self.backend == "pglite":
            shutil.rmtree(self.data_dir, ignore_errors=True)
        elif shutil.which("psql"):
            drop = f'DROP SCHEMA IF EXISTS "{self.schema}_es" CASCADE; DROP SCHEMA IF EXISTS "{self.schema}_rm" CASCADE'
            subprocess.run(["psql", os.environ["TEST_DATABASE_URL"], "-qc", drop], check=False, capture_output=True)


@pytest.fixture(scope="module", params=BACKENDS)
def ledger(request: pytest.FixtureRequest) -> Iterator[Ledger]:
    running = Ledger(request.param)
    running.start()
    try:
        yield running
    finally:
        running.stop()
        running.remove()


def session(ledger: Ledger, session_id: str | None = None, **options: Any) -> LedgerSession:
    """A session in a namespace of its own unless one is given: the service is shared by the module's tests."""
    options.setdefault("namespace", f"py-{uuid.uuid4().hex[:8]}")
    return LedgerSession(session_id, url=ledger.url, retry=FAST, **options)


def message(text: str, role: str = "user") -> dict[str, Any]:
    return {"role": role, "content": text}


def test_items_come_back_in_order_and_limit_gives_the_newest_in_order(ledger: Ledger) -> None:
    async def scenario() -> None:
        chat = session(ledger, "chat-1")
        assert await chat.get_items() == []
        first = [message("one"), {"type": "function_call", "call_id": "c1", "name": "f", "arguments": '{"a": 1}', "id": "fc_1"}]
        second = [
            {"type": "function_call_output", "call_id": "c1", "output": "é ✓ 🚀"},
            {"role": "assistant", "content": [{"type": "output_text", "text": "two", "annotations": []}], "id": "msg_1"},
        ]
        await chat.add_items(first)
        await chat.add_items(second)
        await chat.add_items([])
        assert await chat.get_items() == first + second
        assert await chat.get_items(2) == second
        assert await chat.get_items(3) == (first + second)[1:]
        assert await chat.get_items(10) == first + second
        assert await chat.get_items(0) == []

        many = [message(f"m{index}") for index in range(1_250)]
        await chat.add_items(many)
        everything = await chat.get_items()
        assert len(everything) == 1_254 and everything[:4] == first + second and everything[4:] == many
        assert await chat.get_items(1_100) == many[150:]

    asyncio.run(scenario())


def test_a_session_without_an_id_gets_one_and_another_process_finds_it(ledger: Ledger) -> None:
    async def scenario() -> None:
        chat = session(ledger, namespace="py-created", agent_name="assistant", metadata={"userId": "u-42"})
        assert uuid.UUID(chat.session_id).version == 4
        await chat.add_items([message("hello")])
        again = session(ledger, chat.session_id, namespace="py-created")
        assert await again.get_items() == [message("hello")]
        assert await again.ledger_session_id() == await chat.ledger_session_id()
        assert (await chat.ledger_session_id()).startswith("ag_")

    asyncio.run(scenario())


def test_pop_removes_and_answers_the_last_item_and_clear_empties_the_history(ledger: Ledger) -> None:
    async def scenario() -> None:
        chat = session(ledger, "chat-pop")
        assert await chat.pop_item() is None
        await chat.add_items([message("one"), message("two", "assistant"), message("three")])
        assert await chat.pop_item() == message("three")
        assert await chat.get_items() == [message("one"), message("two", "assistant")]
        await chat.add_items([message("four")])
        assert await chat.get_items() == [message("one"), message("two", "assistant"), message("four")]
        await chat.clear_session()
        assert await chat.get_items() == []
        assert await chat.pop_item() is None
        await chat.add_items([message("after the clear")])
        assert await chat.get_items() == [message("after the clear")]

    asyncio.run(scenario())


def test_a_write_whose_answer_was_lost_is_retried_under_one_key_and_written_once(ledger: Ledger) -> None:
    async def scenario(proxy: FaultProxy) -> None:
        chat = LedgerSession("chat-retry", url=proxy.url, namespace=f"py-{uuid.uuid4().hex[:8]}", retry=FAST)
        await chat.get_items()
        proxy.lose_next_answers(1)
        await chat.add_items([message("once"), message("only once", "assistant")])
        appends = [seen for seen in proxy.requests_to("/items") if seen.method == "POST" and not seen.path.endswith("/pop")]
        assert len(appends) == 2
        assert appends[0].headers["idempotency-key"] == appends[1].headers["idempotency-key"]
        assert await chat.get_items() == [message("once"), message("only once", "assistant")]

        proxy.lose_next_answers(1)
        assert await chat.pop_item() == message("only once", "assistant")
        assert await chat.get_items() == [message("once")], "a retried pop removes one item"

    with FaultProxy(ledger.url) as proxy:
        asyncio.run(scenario(proxy))


def test_another_process_deleting_the_session_leaves_an_empty_one_for_reads_and_writes(ledger: Ledger) -> None:
    async def scenario() -> None:
        namespace = f"py-deleted-{uuid.uuid4().hex[:6]}"
        reader = session(ledger, "deleted-elsewhere", namespace=namespace)
        writer = session(ledger, "deleted-elsewhere", namespace=namespace)
        await writer.add_items([message("before the deletion")])
        assert await reader.get_items() == [message("before the deletion")]
        first = await reader.ledger_session_id()
        LedgerClient(ledger.url).delete_agent_session(namespace, "deleted-elsewhere")
        # Both still hold the deleted session's id: the read sees it is gone, the write is refused and goes on.
        assert await reader.get_items() == []
        assert await reader.ledger_session_id() != first
        await writer.add_items([message("after the deletion")])
        assert await writer.ledger_session_id() == await reader.ledger_session_id()
        assert await reader.get_items() == [message("after the deletion")]

    asyncio.run(scenario())


def test_namespaces_see_nothing_of_each_other(ledger: Ledger) -> None:
    async def scenario() -> None:
        a = session(ledger, "shared-id", namespace=f"tenant-a-{uuid.uuid4().hex[:6]}")
        b = session(ledger, "shared-id", namespace=f"tenant-b-{uuid.uuid4().hex[:6]}")
        await a.add_items([message("only in a")])
        assert await b.get_items() == []
        assert await b.pop_item() is None
        await b.clear_session()
        assert await a.get_items() == [message("only in a")]
        assert await a.ledger_session_id() != await b.ledger_session_id()

    asyncio.run(scenario())


def test_the_history_outlives_a_restart_of_the_service(ledger: Ledger) -> None:
    namespace = f"py-restart-{uuid.uuid4().hex[:6]}"
    items = [message("before the restart"), message("kept", "assistant")]
    asyncio.run(session(ledger, "chat-restart", namespace=namespace).add_items(items))
    ledger.stop()
    ledger.start()

    async def after() -> None:
        resumed = session(ledger, "chat-restart", namespace=namespace)
        assert await resumed.get_items() == items
        await resumed.add_items([message("after the restart")])
        assert await resumed.get_items(2) == [message("kept", "assistant"), message("after the restart")]

    asyncio.run(after())


def test_a_ledger_that_is_down_raises_an_error_naming_its_url_never_an_empty_history() -> None:
    url = "http://127.0.0.1:9"
    chat = LedgerSession("nobody", url=url, retry=RetryOptions(max_attempts=2, base_delay=0.01, max_delay=0.01, max_elapsed=2.0))

    for call in (chat.get_items(), chat.add_items([message("x")]), chat.pop_item(), chat.clear_session()):
        with pytest.raises(LedgerUnavailableError) as raised:
            asyncio.run(call)
        assert url in str(raised.value) and raised.value.url == url
