"""When the client sends a request again, and how long it waits first (the TypeScript client's policy)."""

from __future__ import annotations

import errno
import random
import socket
import urllib.error
from dataclasses import dataclass
from typing import Callable, Literal, Union


@dataclass(frozen=True)
class RetryOptions:
    max_attempts: int = 8
    """Tries per call, the first included."""
    base_delay: float = 0.1
    max_delay: float = 2.0
    max_elapsed: float = 30.0
    """No new try starts this many seconds after the first (a service restarting takes a few seconds)."""


# 409 is usually a decision, not an accident: ALREADY_FIRED, TURN_IN_FLIGHT, RUNTIME_BUSY, SESSION_ENDED,
# JOB_EXISTS and the like answer the same however often they are asked, and the caller must act on them. A lost
# compare-and-set wrote nothing, and a key still in use by its first request will answer that request's outcome
# once it finishes: both are worth asking again.
RETRYABLE_CONFLICTS = frozenset({"WRONG_EXPECTED_REVISION", "IDEMPOTENCY_KEY_IN_USE"})
# A read model still catching up, or a store briefly away: nothing was written.
RETRYABLE_UNAVAILABLE = frozenset({"PROJECTION_NOT_CAUGHT_UP", "DATABASE_UNAVAILABLE", "EVENT_STORE_UNAVAILABLE"})


@dataclass(frozen=True)
class AnswerFailure:
    status: int
    code: str
    kind: Literal["answer"] = "answer"


@dataclass(frozen=True)
class NetworkFailure:
    connected: bool
    """False when the request never left this process (refused, unresolvable): repeating it is always safe."""
    kind: Literal["network"] = "network"


Failure = Union[AnswerFailure, NetworkFailure]


def should_retry(failure: Failure, safe_to_repeat: bool) -> bool:
    """Whether to try ``failure`` again, given whether the request may be repeated after a lost answer."""
    if isinstance(failure, NetworkFailure):
        return not failure.connected or safe_to_repeat
    if failure.status == 409:
        return failure.code in RETRYABLE_CONFLICTS
    if failure.status == 503:
        return failure.code == "PROJECTION_NOT_CAUGHT_UP" or (safe_to_repeat and failure.code in RETRYABLE_UNAVAILABLE)
    return False


def retry_delay(attempt: int, options: RetryOptions, rand: Callable[[], float] = random.random) -> float:
    """Exponential backoff, half of it random: retries of many clients spread out instead of arriving together."""
    ceiling = min(options.max_delay, options.base_delay * 2.0**attempt)
    return ceiling / 2 + rand() * ceiling / 2


_NOT_CONNECTED_ERRNOS = frozenset({errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EADDRNOTAVAIL})


def never_connected(error: BaseException) -> bool:
    """The request never reached the service: the connection was refused, or the host did not resolve."""
    reason: object = error.reason if isinstance(error, urllib.error.URLError) else error
    if isinstance(reason, (ConnectionRefusedError, socket.gaierror)):
        return True
    return isinstance(reason, OSError) and reason.errno in _NOT_CONNECTED_ERRNOS
