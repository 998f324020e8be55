"""The OpenAI Agents SDK's ``Session`` kept by Session Ledger: a session by external id, its items an item history.

``Runner.run(agent, "hi", session=LedgerSession("chat-17", url="http://127.0.0.1:3000"))``. Standard library only: the
SDK's ``Session`` is a protocol, so nothing of it is imported. The history is the one the TypeScript adapter
(``session-ledger/openai-agents``) keeps: the same namespace and id name the same session in both languages.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from typing import Any, Callable, Optional, TypeVar

from .client import LedgerClient
from .errors import LedgerError, LedgerNetworkError, LedgerUnavailableError
from .retry_policy import RetryOptions

Item = dict[str, Any]
Result = TypeVar("Result")

APPEND_BATCH = 100
"""Items per request: well under the ledger's MAX_MESSAGES_PER_TURN (1000 by default)."""
PAGE = 1_000
"""Items per page of a read (the ledger answers at most 1000)."""


class LedgerSession:
    """Where the SDK takes a ``Session``: ``session_id``, and async ``get_items``, ``add_items``, ``pop_item``,
    ``clear_session``. Items are kept as they come, in order; every write carries one ``Idempotency-Key`` across its
    retries, so a write whose answer was lost is not carried out twice. Without a ``session_id`` it names a new
    session (a UUID), created on first use."""

    session_settings: Any = None
    """The SDK's optional per-session settings (``SessionSettings``); none here: the Runner's defaults apply."""

    def __init__(
        self,
        session_id: Optional[str] = None,
        *,
        url: str,
        token: Optional[str] = None,
        namespace: Optional[str] = None,
        agent_name: Optional[str] = None,
        metadata: Optional[dict[str, Any]] = None,
        retry: Optional[RetryOptions] = None,
        timeout: float = 30.0,
    ) -> None:
        self.session_id = session_id if session_id is not None else str(uuid.uuid4())
        self.namespace = namespace or "openai-agents"
        self.url = url
        self._client = LedgerClient(url, token, retry=retry, timeout=timeout)
        self._agent_name = agent_name
        self._metadata = metadata
        self._ledger_session_id: Optional[str] = None
        self._opening = threading.Lock()

    async def ledger_session_id(self) -> str:
        """The ledger's own id of the session (``ag_…``): for its other routes, the console, audit and erasure."""
        return await self._run("ledger_session_id", self._open)

    async def get_items(self, limit: Optional[int] = None) -> list[Item]:
        """All items oldest first, or the newest ``limit`` of them, still oldest first."""

        def read(session: str) -> list[Item]:
            pages: list[list[Item]] = []
            wanted = limit
            before: Optional[str] = None
            while wanted is None or wanted > 0:
                size = PAGE if wanted is None else min(PAGE, wanted)
                page = self._client.list_items(session, limit=size, before=before)
                if page["status"] == "destroyed":
                    raise _SessionDeletedElsewhere()
                pages.insert(0, [entry["item"] for entry in page["items"]])
                if wanted is not None:
                    wanted -= len(page["items"])
                if not page["hasMore"] or not page["items"]:
                    break
                before = page["items"][0]["id"]
            return [item for page_items in pages for item in page_items]

        if limit is not None and limit <= 0:
            return []
        return await self._run("get_items", lambda: self._on_live_session(read))

    async def add_items(self, items: list[Item]) -> None:
        if not items:
            return

        batches = [[dict(item) for item in items[first : first + APPEND_BATCH]] for first in range(0, len(items), APPEND_BATCH)]
        written = 0

        def append(session: str) -> None:
            nonlocal written
            # The SDK's items carry provider ids that need not be unique (placeholders), so none is taken as an item
            # id. After a deletion elsewhere the batches not yet written go to the id's next session.
            while written < len(batches):
                self._client.append_items(session, batches[written], id_field=None)
                written += 1

        await self._run("add_items", lambda: self._on_live_session(append))

    async def pop_item(self) -> Optional[Item]:
        def pop(session: str) -> Optional[Item]:
            popped = self._client.pop_item(session)["item"]
            return None if popped is None else popped["item"]

        return await self._run("pop_item", lambda: self._on_live_session(pop))

    async def clear_session(self) -> None:
        await self._run("clear_session", lambda: self._on_live_session(self._client.clear_items))

    def _on_live_session(self, use: Callable[[str], Result]) -> Result:
        """Runs ``use`` on the ledger session, and once more on the id's next session when another process deleted
        this one meanwhile: as with the SDK's own stores, the id then names an empty session, never a dead one."""
        session = self._open()
        try:
            return use(session)
        except (_SessionDeletedElsewhere, LedgerError) as refused:
            if isinstance(refused, LedgerError) and refused.code != "SESSION_DESTROYED":
                raise
            with self._opening:
                if self._ledger_session_id == session:
                    self._ledger_session_id = None
            return use(self._open())

    def _open(self) -> str:
        with self._opening:
            if self._ledger_session_id is None:
                created = self._client.put_agent_session(
                    self.namespace, self.session_id, agent_name=self._agent_name, metadata=self._metadata
                )
                self._ledger_session_id = created["sessionId"]
            return self._ledger_session_id

    async def _run(self, operation: str, call: Callable[[], Result]) -> Result:
        try:
            return await asyncio.to_thread(call)
        except LedgerNetworkError as lost:
            raise LedgerUnavailableError(self.url, operation, lost) from lost


class _SessionDeletedElsewhere(Exception):
    """A read found the session destroyed: another process deleted it."""
