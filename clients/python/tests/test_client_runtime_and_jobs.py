"""LedgerClient against the real service: runtime turns, worker events, approvals and questions, jobs, event streams."""

from __future__ import annotations

import threading
import uuid
from typing import Callable, TypeVar

import pytest

from session_ledger import LedgerClient, LedgerError, SessionSource

T = TypeVar("T")


def within(seconds: float, work: Callable[[], T]) -> T:
    """Runs ``work`` on a thread and fails the test if it has not finished in time (a stream that never yields)."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # handed to the test thread
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"no answer within {seconds} s"
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def test_runtime_turn_worker_events_approvals_and_questions(client: LedgerClient, chat_id: str) -> None:
    key = client.resolve_session(SessionSource("web", chat_id, user_id="42"))["sessionKey"]

    turn = client.runtime_turn(key, "codex", "gpt-5", "fix the failing test")
    runtime_id = turn["runtimeSessionId"]
    client.report_worker_event(runtime_id, {"type": "started", "turnId": turn["turnId"]})
    client.report_worker_event(runtime_id, {"type": "approval_request", "approvalId": "appr-1", "details": {"command": "npm publish"}})
    client.report_worker_event(runtime_id, {"type": "question", "questionId": "q-1"})
    pending = client.runtime_pending(key)
    with pytest.raises(LedgerError) as busy:
        client.runtime_turn(key, "codex", "gpt-5", "another")

    approved = client.resolve_approval(runtime_id, "appr-1", "allow", remember="session")
    answered = client.answer_question(runtime_id, "q-1", "yes")
    completed = client.report_worker_event(runtime_id, {"type": "completed", "output": {"ok": True}})

    assert turn["newSession"] is True and turn["reason"] == "new" and turn["turnId"] == "turn_1"
    assert [wait["approvalId"] for wait in pending["approvals"]] == ["appr-1"]
    assert [wait["questionId"] for wait in pending["questions"]] == ["q-1"]
    assert (busy.value.status, busy.value.code) == (409, "RUNTIME_BUSY")
    assert approved["decision"] == "allow" and approved["changed"] is True
    assert answered["questionId"] == "q-1" and completed["state"] == "idle"
    session = client.get_runtime_session(runtime_id)
    assert session["turnCount"] == 1 and session["boundConversations"] == [key]
    assert client.get_runtime_binding(key)["state"] == "idle"

    drift = client.runtime_turn(key, "claude", "sonnet", "go on")
    assert drift["reason"] == "drift" and drift["previousRuntimeSessionId"] == runtime_id
    client.report_worker_event(drift["runtimeSessionId"], {"type": "failed", "error": "boom"})
    detached = client.runtime_detach(key)
    assert detached["state"] == "unbound" and detached["changed"] is True
    task = client.runtime_new(key, task="write the changelog", provider="codex")
    assert task["reason"] == "task" and task["provider"] == "codex"


def test_jobs_fire_at_most_once_and_report_runs(client: LedgerClient) -> None:
    job_id = f"digest-{uuid.uuid4().hex[:8]}"
    created = client.create_job({"id": job_id, "prompt": "Summarise", "schedule": "in 1m", "deliverTo": {"platform": "slack", "chatId": "C1"}})
    fired = client.fire_job(job_id)
    with pytest.raises(LedgerError) as again:
        client.fire_job(job_id, fired["slot"])
    reported = client.report_run(job_id, fired["fireId"], "ok")

    assert created["id"] == job_id and created["scheduleKind"] == "once"
    assert fired["jobId"] == job_id and fired["task"]["prompt"] == "Summarise"
    assert again.value.status == 409
    assert reported["fire"]["status"] == "ok"
    assert client.get_job(job_id)["recentFires"][0]["fireId"] == fired["fireId"]

    fires = client.job_fires(from_position=0)
    seen = within(30, lambda: next(fire for fire in fires if fire["data"].get("jobId") == job_id))
    assert seen["name"] == "job.fired" and seen["position"] > 0


def test_jobs_import_list_update_and_delete(client: LedgerClient) -> None:
    job_id = f"health-{uuid.uuid4().hex[:8]}"
    imported = client.import_jobs([{"id": job_id, "schedule": "*/30 * * * *", "skill": "server-health-checker"}])
    paused = client.update_job(job_id, {"enabled": False})
    listed = client.list_jobs(enabled=False, limit=500)
    removed = client.delete_job(job_id)

    assert [job["id"] for job in imported["created"]] == [job_id]
    assert paused["enabled"] is False and paused["changed"] is True
    assert job_id in [job["id"] for job in listed["jobs"]]
    assert removed["removed"] is True
    with pytest.raises(LedgerError) as gone:
        client.get_job(job_id)
    assert gone.value.code == "JOB_NOT_FOUND"


def test_lifecycle_events_resume_after_a_silent_connection_and_miss_nothing(client: LedgerClient, chat_id: str) -> None:
    key = client.resolve_session(SessionSource("telegram", chat_id))["sessionKey"]
    client.suspend_conversation(key)
    reconnects: list[int] = []

    def on_reconnect(attempt: int, reason: BaseException) -> None:
        # The stream went quiet past its read timeout: write the next event while it is away.
        if not reconnects:
            client.resolve_session(SessionSource("telegram", chat_id))
        reconnects.append(attempt)

    def read_until_the_new_session() -> list[dict[str, object]]:
        seen: list[dict[str, object]] = []
        for event in client.events(session_key=key, from_position=0, read_timeout=0.5, on_reconnect=on_reconnect):
            seen.append(dict(event))
            if event["type"] == "SessionBound" and event["data"].get("reason") == "suspended":
                return seen
        return seen

    seen = within(30, read_until_the_new_session)

    positions = [int(str(event["position"])) for event in seen]
    assert positions == sorted(set(positions)), "an event came twice or out of order"
    types = [event["type"] for event in seen if str(event["streamName"]).startswith("conversation-")]
    assert types == ["ConversationOpened", "SessionBound", "Suspended", "SessionBound"]
    assert reconnects, "the stream should have reconnected after its read timeout"


def test_event_stream_filters_refuse_bad_input(client: LedgerClient) -> None:
    with pytest.raises(LedgerError) as refused:
        next(client.events(types=["not a type!"]))
    assert (refused.value.status, refused.value.code) == (400, "VALIDATION_FAILED")
