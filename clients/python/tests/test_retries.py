"""Retries, idempotency keys and read-your-writes, through a proxy that loses answers in front of the real service."""

from __future__ import annotations

import json
import socket
import urllib.request
import uuid
from typing import Iterator

import pytest

from fault_proxy import FaultProxy
from session_ledger import LedgerClient, LedgerError, LedgerNetworkError, RetryOptions, SessionSource

FAST = RetryOptions(base_delay=0.02, max_delay=0.2, max_elapsed=10.0)


@pytest.fixture
def proxy(ledger_url: str) -> Iterator[FaultProxy]:
    with FaultProxy(ledger_url) as running:
        yield running


def new_session(client: LedgerClient) -> tuple[str, str]:
    resolved = client.resolve_session(SessionSource("telegram", uuid.uuid4().hex[:12]))
    return resolved["sessionKey"], resolved["sessionId"]


def service_replays_idempotent_writes(ledger_url: str, session_id: str) -> bool:
    """Whether the service answers a repeated key with the first answer (``Idempotent-Replayed: true``)."""
    key = str(uuid.uuid4())
    answers = []
    for _ in range(2):
        request = urllib.request.Request(
            f"{ledger_url}/v1/sessions/{session_id}/checkpoints",
            data=b"{}",
            method="POST",
            headers={"Content-Type": "application/json", "Idempotency-Key": key},
        )
        with urllib.request.urlopen(request) as response:
            answers.append((response.headers.get("Idempotent-Replayed"), json.loads(response.read())))
    return answers[1][0] == "true" and answers[0][1] == answers[1][1]


def test_a_write_whose_answer_was_lost_is_sent_again_with_the_same_key(ledger_url: str, proxy: FaultProxy) -> None:
    client = LedgerClient(proxy.url, retry=FAST)
    _, session_id = new_session(client)

    proxy.lose_next_answers(1)
    recorded = client.record_turn(session_id, [{"role": "user", "content": "only once"}])

    sent = proxy.requests_to(f"/v1/sessions/{session_id}/turns")
    keys = [request.headers.get("idempotency-key") for request in sent]
    exchange = client.last_exchange
    assert len(sent) == 2 and keys[0] and keys[0] == keys[1], "the retry must carry the first try's key"
    assert exchange is not None and exchange.attempts == 2 and exchange.idempotency_key == keys[0]
    assert recorded["turnIndex"] >= 1
    if service_replays_idempotent_writes(ledger_url, session_id):
        # The service has the key contract: the retry was answered from the first write, which happened once.
        assert exchange.replayed is True
        assert recorded["turnIndex"] == 1
        assert client.get_session(session_id)["turnCount"] == 1


def test_every_write_gets_a_fresh_key_and_reads_get_none(proxy: FaultProxy) -> None:
    client = LedgerClient(proxy.url, retry=FAST)
    key, session_id = new_session(client)
    client.record_turn(session_id, [{"role": "user", "content": "a"}])
    client.record_turn(session_id, [{"role": "user", "content": "b"}])
    client.get_conversation(key)

    keys = [request.headers.get("idempotency-key") for request in proxy.requests if request.method != "GET"]
    reads = [request for request in proxy.requests if request.method == "GET"]
    assert len(keys) == 3 and all(keys) and len(set(keys)) == 3
    assert all("idempotency-key" not in request.headers for request in reads)

    client.record_turn(session_id, [{"role": "user", "content": "c"}], idempotency_key="caller-chosen-key")
    assert proxy.requests[-1].headers.get("idempotency-key") == "caller-chosen-key"


def test_without_keys_a_lost_answer_to_an_unsafe_write_is_not_repeated(proxy: FaultProxy) -> None:
    client = LedgerClient(proxy.url, retry=FAST, idempotency_keys=False)
    _, session_id = new_session(client)

    proxy.lose_next_answers(1)
    with pytest.raises(LedgerNetworkError) as lost:
        client.record_turn(session_id, [{"role": "user", "content": "maybe"}])

    sent = proxy.requests_to(f"/v1/sessions/{session_id}/turns")
    assert lost.value.maybe_applied is True and lost.value.operation == "record_turn"
    assert lost.value.idempotency_key is None
    assert len(sent) == 1 and "idempotency-key" not in sent[0].headers


def test_without_keys_a_lost_answer_to_a_safe_operation_is_repeated(proxy: FaultProxy) -> None:
    client = LedgerClient(proxy.url, retry=FAST, idempotency_keys=False)
    source = SessionSource("telegram", uuid.uuid4().hex[:12])

    proxy.lose_next_answers(1)
    resolved = client.resolve_session(source)

    assert len(proxy.requests_to("/v1/sessions/resolve")) == 2
    assert resolved["created"] is False, "the lost first try created the session; the retry found it"
    assert client.resolve_session(source)["sessionId"] == resolved["sessionId"]


def test_a_refused_connection_is_retried_for_any_operation_until_the_service_is_back(ledger_url: str) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    direct = LedgerClient(ledger_url)
    _, session_id = new_session(direct)
    started: list[FaultProxy] = []
    reasons: list[BaseException] = []

    def on_retry(operation: str, attempt: int, reason: BaseException) -> None:
        reasons.append(reason)
        if attempt == 2:
            started.append(FaultProxy(ledger_url, port=port).__enter__())

    client = LedgerClient(f"http://127.0.0.1:{port}", retry=FAST, idempotency_keys=False, on_retry=on_retry)
    try:
        recorded = client.record_turn(session_id, [{"role": "user", "content": "after the restart"}])
    finally:
        for proxy in started:
            proxy.__exit__(None, None, None)

    assert recorded["turnIndex"] == 1
    assert client.last_exchange is not None and client.last_exchange.attempts == 3
    assert all(isinstance(reason, LedgerNetworkError) and not reason.maybe_applied for reason in reasons)


def test_decisions_are_raised_at_once_not_retried(client: LedgerClient) -> None:
    _, session_id = new_session(client)
    client.start_turn(session_id)

    with pytest.raises(LedgerError) as refused:
        client.start_turn(session_id)

    assert (refused.value.status, refused.value.code) == (409, "TURN_IN_FLIGHT")
    assert client.last_exchange is not None and client.last_exchange.attempts == 1


def test_a_read_model_behind_the_asked_position_is_asked_again(ledger_url: str) -> None:
    client = LedgerClient(ledger_url, retry=RetryOptions(base_delay=0.05, max_delay=0.1, max_elapsed=2.5))

    with pytest.raises(LedgerError) as behind:
        client.list_sessions(min_position=2**52)

    assert (behind.value.status, behind.value.code) == (503, "PROJECTION_NOT_CAUGHT_UP")
    assert client.last_exchange is not None and client.last_exchange.attempts >= 2


def test_queries_carry_the_position_the_client_last_wrote(ledger_url: str, proxy: FaultProxy) -> None:
    client = LedgerClient(proxy.url, token="a-bearer-secret-for-the-test")
    key, _ = new_session(client)
    written = client.position
    client.session_by_key(key)
    client.session_by_key(key, min_position=1)
    blind = LedgerClient(proxy.url, read_your_writes=False)
    blind.observe_position(written)
    blind.session_by_key(key)

    reads = proxy.requests_to("/v1/conversations/")
    assert written > 0
    assert [request.headers.get("x-min-position") for request in reads] == [str(written), "1", None]
    assert proxy.requests[0].headers.get("authorization") == "Bearer a-bearer-secret-for-the-test"
    assert "authorization" not in reads[-1].headers


def test_when_retries_run_out_the_error_names_the_key_to_send_the_write_again_with(ledger_url: str, proxy: FaultProxy) -> None:
    client = LedgerClient(proxy.url, retry=RetryOptions(max_attempts=2, base_delay=0.01))
    _, session_id = new_session(client)

    proxy.lose_next_answers(2)
    with pytest.raises(LedgerNetworkError) as lost:
        client.record_turn(session_id, [{"role": "user", "content": "did it land?"}])
    key = lost.value.idempotency_key
    again = client.record_turn(session_id, [{"role": "user", "content": "did it land?"}], idempotency_key=key)

    sent = proxy.requests_to(f"/v1/sessions/{session_id}/turns")
    assert lost.value.maybe_applied is True and key is not None
    assert [request.headers.get("idempotency-key") for request in sent] == [key, key, key]
    if service_replays_idempotent_writes(ledger_url, session_id):
        assert client.last_exchange is not None and client.last_exchange.replayed is True
        assert again["turnIndex"] == 1
