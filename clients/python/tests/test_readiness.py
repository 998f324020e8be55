"""Readiness through the client: the checks a degraded service names, and a 503's checks kept on the error."""

from __future__ import annotations

import socket
import time
import uuid

from conftest import running_service
from session_ledger import LedgerClient, RetryOptions
from session_ledger.transport import _api_error


def _closed_port() -> int:
    """A port nothing listens on: the job scheduler there never answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_job_scheduler_that_does_not_answer_is_named_in_the_ready_checks() -> None:
    with running_service(
        JOBS_SCHEDULER_URL=f"http://127.0.0.1:{_closed_port()}",
        JOBS_SCHEDULER_FALLBACK_AFTER="1",
        JOBS_CALLBACK_BASE_URL="http://127.0.0.1:9",
    ) as url:
        client = LedgerClient(url, retry=RetryOptions(base_delay=0.05, max_elapsed=10.0))
        assert client.ready()["checks"]["jobScheduler"]["timers"] == "scheduler"
        client.create_job({"id": f"job-{uuid.uuid4().hex[:8]}", "prompt": "Summarise", "schedule": "in 1h"})
        deadline = time.monotonic() + 30
        ready = client.ready()
        while ready["checks"]["jobScheduler"]["timers"] != "fallback" and time.monotonic() < deadline:
            time.sleep(0.1)
            ready = client.ready()
        assert ready["status"] == "degraded"
        scheduler = ready["checks"]["jobScheduler"]
        assert scheduler["ok"] is False
        assert scheduler["timers"] == "fallback"
        assert scheduler["failuresInARow"] >= 1
        assert "does not answer" in scheduler["detail"]


def test_an_answer_without_an_error_envelope_is_kept_whole_as_the_details() -> None:
    # The shape of /ready's 503 (see the service's projection-fault test, which gets it from a failed projection).
    body = b'{"status":"not_ready","checks":{"projections":{"ok":false,"states":[]}}}'
    error = _api_error("ready", 503, {"X-Request-Id": "r-1"}, body)
    assert (error.status, error.code, error.request_id) == (503, "HTTP_503", "r-1")
    assert error.details == {"status": "not_ready", "checks": {"projections": {"ok": False, "states": []}}}
    enveloped = _api_error("get_session", 404, None, b'{"error":{"code":"SESSION_NOT_FOUND","message":"no such session","details":{"id":"x"}}}')
    assert (enveloped.code, enveloped.details) == ("SESSION_NOT_FOUND", {"id": "x"})
