"""One HTTP exchange with the service: URL, headers, idempotency key, retries, read-your-writes, error parsing."""

from __future__ import annotations

import http.client
import json
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Union

from .errors import LedgerError, LedgerNetworkError
from .operations import OPERATIONS, Operation
from .retry_policy import AnswerFailure, Failure, NetworkFailure, RetryOptions, never_connected, retry_delay, should_retry

QueryValue = Union[str, int, float, bool, list[str], tuple[str, ...], None]

# Sentinel: the operation sends no body (distinct from a body of JSON null).
NO_BODY: Any = object()
_PATH_PARAMETER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class Exchange:
    """What the last call on this thread got: for logs, and to see an idempotent replay."""

    operation: str
    status: int
    request_id: Optional[str]
    idempotency_key: Optional[str]
    replayed: bool
    """The service answered a repeat of an earlier request with the same key (``Idempotent-Replayed: true``)."""
    attempts: int


class Transport:
    def __init__(
        self,
        url: str,
        token: Optional[str] = None,
        *,
        retry: Optional[RetryOptions] = None,
        timeout: float = 30.0,
        read_your_writes: bool = True,
        idempotency_keys: bool = True,
        on_retry: Optional[Callable[[str, int, BaseException], None]] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = url.rstrip("/")
        self.token = token
        self.retry = retry or RetryOptions()
        self.timeout = timeout
        self.read_your_writes = read_your_writes
        self.idempotency_keys = idempotency_keys
        self.on_retry = on_retry
        self.sleep = sleep
        self._opener = urllib.request.build_opener()
        self._position = 0
        self._position_lock = threading.Lock()
        self._last = threading.local()

    @property
    def position(self) -> int:
        return self._position

    def observe_position(self, position: int) -> None:
        with self._position_lock:
            if isinstance(position, int) and not isinstance(position, bool) and position > self._position:
                self._position = position

    @property
    def last_exchange(self) -> Optional[Exchange]:
        return getattr(self._last, "exchange", None)

    def url(self, operation: Operation, params: Mapping[str, str], query: Optional[Mapping[str, QueryValue]]) -> str:
        def fill(match: str) -> str:
            value = params.get(match)
            if value is None:
                raise TypeError(f"missing path parameter {match} for {operation.path}")
            return urllib.parse.quote(str(value), safe="")

        path = _PATH_PARAMETER.sub(lambda match: fill(match.group(1)), operation.path)
        return f"{self.base_url}{path}{_query_string(operation, query)}"

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def call(
        self,
        name: str,
        params: Optional[Mapping[str, str]] = None,
        *,
        query: Optional[Mapping[str, QueryValue]] = None,
        body: Any = NO_BODY,
        min_position: Optional[int] = None,
        idempotency_key: Optional[str] = None,
        if_match: Optional[int] = None,
    ) -> Any:
        operation = OPERATIONS[name]
        url = self.url(operation, params or {}, query)
        headers = {**self.headers(), "Accept": "application/json"}
        data: Optional[bytes] = None
        if body is not NO_BODY:
            data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if operation.method == "GET":
            wanted = self._position if min_position is None else min_position
            if self.read_your_writes and wanted > 0:
                headers["X-Min-Position"] = str(wanted)
        elif idempotency_key is not None or self.idempotency_keys:
            # One key for the call, kept across its retries: a repeat whose first answer was lost is replayed by
            # the service instead of being carried out twice.
            idempotency_key = idempotency_key or str(uuid.uuid4())
            headers["Idempotency-Key"] = idempotency_key
        if if_match is not None and operation.method != "GET":
            # The write goes ahead only while the stream stands at this revision (412 PRECONDITION_FAILED otherwise).
            headers["If-Match"] = f'"{if_match}"'
        repeatable = operation.safe_to_repeat or idempotency_key is not None

        started = time.monotonic()
        attempt = 0
        while True:
            failure: Failure
            error: Exception
            try:
                request = urllib.request.Request(url, data=data, headers=headers, method=operation.method)
                with self._opener.open(request, timeout=self.timeout) as response:
                    payload = response.read()
                    self._remember(name, response.status, response.headers, idempotency_key, attempt + 1)
                    return self._answer(operation, response.status, payload)
            except urllib.error.HTTPError as refused:
                api_error = _api_error(name, refused.code, refused.headers, _read_quietly(refused))
                self._remember(name, refused.code, refused.headers, idempotency_key, attempt + 1)
                failure, error = AnswerFailure(api_error.status, api_error.code), api_error
            except (urllib.error.URLError, OSError, http.client.HTTPException) as lost:
                connected = not never_connected(lost)
                failure = NetworkFailure(connected)
                error = LedgerNetworkError(name, connected and not operation.safe_to_repeat, lost, idempotency_key)
            delay = retry_delay(attempt, self.retry)
            last = attempt + 1 >= self.retry.max_attempts or time.monotonic() - started + delay > self.retry.max_elapsed
            if last or not should_retry(failure, repeatable):
                raise error
            attempt += 1
            if self.on_retry:
                self.on_retry(name, attempt, error)
            self.sleep(delay)

    def open_stream(self, name: str, query: Mapping[str, QueryValue], last_event_id: Optional[str], timeout: float) -> Any:
        """Opens a server-sent event route; the caller reads lines and closes it. Error answers raise LedgerError."""
        operation = OPERATIONS[name]
        headers = {**self.headers(), "Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        request = urllib.request.Request(self.url(operation, {}, query), headers=headers, method="GET")
        try:
            return self._opener.open(request, timeout=timeout)
        except urllib.error.HTTPError as refused:
            raise _api_error(name, refused.code, refused.headers, _read_quietly(refused)) from None

    def _answer(self, operation: Operation, status: int, payload: bytes) -> Any:
        if status == 204 or not payload:
            return None
        body = json.loads(payload)
        if operation.method != "GET" and isinstance(body, dict):
            position = body.get("position")
            if isinstance(position, int):
                self.observe_position(position)
        return body

    def _remember(self, name: str, status: int, headers: Any, key: Optional[str], attempts: int) -> None:
        replayed = (headers.get("Idempotent-Replayed") or "").lower() == "true"
        self._last.exchange = Exchange(name, status, headers.get("X-Request-Id"), key, replayed, attempts)


def _query_string(operation: Operation, query: Optional[Mapping[str, QueryValue]]) -> str:
    pairs: list[tuple[str, str]] = []
    for name, value in (query or {}).items():
        if value is None:
            continue
        # The operations table is what the drift test checks against the OpenAPI document: nothing may bypass it.
        if name not in operation.query:
            raise TypeError(f"{operation.path} takes no query parameter {name}")
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            text = ",".join(value)
        else:
            text = str(value)
        pairs.append((name, text))
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


def _read_quietly(refused: urllib.error.HTTPError) -> bytes:
    """The body of an error answer, and its connection closed."""
    try:
        data = refused.read()
        return data if isinstance(data, bytes) else b""
    except (OSError, http.client.HTTPException):
        return b""
    finally:
        refused.close()


def _api_error(name: str, status: int, headers: Any, payload: bytes) -> LedgerError:
    text = payload.decode("utf-8", errors="replace")
    error: dict[str, Any] = {}
    try:
        parsed = json.loads(text)
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
            error = parsed["error"]
        else:
            # An answer that is no error envelope (a 503 from /ready, with its checks) is the refusal's details, whole.
            error = {"details": parsed}
    except ValueError:
        pass
    request_id = error.get("requestId") or (headers.get("X-Request-Id") if headers is not None else None)
    return LedgerError(
        status,
        str(error.get("code") or f"HTTP_{status}"),
        str(error.get("message") or text[:200] or f"HTTP {status}"),
        request_id,
        error.get("details"),
        name,
    )
