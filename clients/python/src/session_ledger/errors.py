"""Errors the client raises: the service's own answer (status, code, request id), or a request that got no answer."""

from __future__ import annotations

from typing import Any


class LedgerError(Exception):
    """The service answered with an error body: ``{"error": {"code", "message", "requestId", "details"}}``."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        request_id: str | None = None,
        details: Any = None,
        operation: str = "",
    ) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.details = details
        self.operation = operation
        where = f"{operation}: " if operation else ""
        request = f" (request {request_id})" if request_id else ""
        super().__init__(f"{where}{status} {code}: {message}{request}")


class LedgerNetworkError(ConnectionError):
    """No answer arrived.

    ``maybe_applied``: the request may have reached the service and been carried out (the connection broke
    after it was sent, and the operation is not safe to repeat). Send it again only with the same
    ``idempotency_key`` (the key the call carried, if any): the service then answers the first outcome.
    """

    def __init__(self, operation: str, maybe_applied: bool, cause: BaseException, idempotency_key: str | None = None) -> None:
        self.operation = operation
        self.maybe_applied = maybe_applied
        self.cause = cause
        self.idempotency_key = idempotency_key
        applied = "; it may have been carried out" if maybe_applied else ""
        super().__init__(f"{operation}: no answer from the service ({cause!r}){applied}")


class LedgerUnavailableError(ConnectionError):
    """The ledger did not answer: what an adapter's call (an agent framework's session) fails with, never an empty
    history. ``url`` is the ledger's, ``operation`` the framework's method; the client's error is ``__cause__``."""

    def __init__(self, url: str, operation: str, cause: BaseException) -> None:
        self.url = url
        self.operation = operation
        super().__init__(f"Session Ledger at {url} did not answer {operation}: {cause}")
