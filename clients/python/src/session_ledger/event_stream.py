"""Server-sent events that survive a dropped connection: reconnect with ``Last-Event-ID``, miss nothing."""

from __future__ import annotations

import http.client
import urllib.error
from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Optional

from .errors import LedgerError, LedgerNetworkError
from .retry_policy import retry_delay
from .transport import QueryValue, Transport


@dataclass(frozen=True)
class ServerSentEvent:
    event: str
    data: str
    id: Optional[str]


def reconnecting_events(
    transport: Transport,
    operation: str,
    query: Mapping[str, QueryValue],
    *,
    read_timeout: float,
    on_reconnect: Optional[Callable[[int, BaseException], None]] = None,
) -> Iterator[ServerSentEvent]:
    """Yields events until the caller stops iterating. A dropped connection, a silent one (no heartbeat within
    ``read_timeout``), a 5xx or a restarting service is retried without end, resuming after the last event seen;
    a 4xx is raised."""
    last_event_id: Optional[str] = None
    failures = 0
    retry_hint = 0.0
    while True:
        failure: BaseException
        try:
            response = transport.open_stream(operation, query, last_event_id, read_timeout)
        except LedgerError as refused:
            if refused.status < 500:
                raise
            failure = refused
        except (urllib.error.URLError, OSError, http.client.HTTPException) as lost:
            failure = lost
        else:
            try:
                event_type, pending_id = "message", last_event_id
                data: list[str] = []
                for raw in response:
                    line = raw.decode("utf-8").rstrip("\n").rstrip("\r")
                    if line == "":
                        # Dispatch: an id sent without data (the start position the service announces) counts too.
                        last_event_id = pending_id
                        if data:
                            failures = 0
                            yield ServerSentEvent(event_type, "\n".join(data), last_event_id)
                        event_type, data = "message", []
                        continue
                    if line.startswith(":"):
                        continue
                    name, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if name == "data":
                        data.append(value)
                    elif name == "event":
                        event_type = value
                    elif name == "id" and "\0" not in value:
                        pending_id = value
                    elif name == "retry" and value.isdigit():
                        retry_hint = int(value) / 1000
                failure = LedgerNetworkError(operation, False, EOFError("the service closed the stream"))
            except (OSError, http.client.HTTPException) as lost:
                failure = lost
            finally:
                response.close()
        if on_reconnect:
            on_reconnect(failures + 1, failure)
        transport.sleep(max(retry_hint, retry_delay(failures, transport.retry)))
        failures += 1
