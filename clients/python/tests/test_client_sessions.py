"""LedgerClient against the real service: turns, transcripts, checkpoints, trees, memory, slots, the index, audit."""

from __future__ import annotations

import pytest

from session_ledger import LedgerClient, LedgerError, SessionSource


def new_session(client: LedgerClient, chat_id: str) -> tuple[str, str]:
    resolved = client.resolve_session(SessionSource("discord", chat_id, chat_type="group", user_id="42"))
    return resolved["sessionKey"], resolved["sessionId"]


def test_a_write_fenced_by_a_stale_revision_or_a_spent_lease_writes_nothing(client: LedgerClient, chat_id: str) -> None:
    _, session_id = new_session(client, chat_id)
    revision = client.get_session(session_id)["revision"]
    started = client.start_turn(session_id, if_match=revision)
    with pytest.raises(LedgerError) as stale:
        client.record_turn(session_id, [{"role": "user", "content": "late"}], if_match=revision)
    recorded = client.record_turn(session_id, [{"role": "user", "content": "hi"}], lease=started["lease"], if_match=started["revision"])
    with pytest.raises(LedgerError) as spent:
        client.record_turn(session_id, [{"role": "user", "content": "again"}], lease=started["lease"])

    assert (stale.value.status, stale.value.code) == (412, "PRECONDITION_FAILED")
    assert recorded["turnIndex"] == 1
    assert (spent.value.status, spent.value.code) == (409, "LEASE_LOST")
    assert client.get_session(session_id)["turnCount"] == 1

def test_turns_accumulate_counters_and_a_started_turn_blocks_rollback(client: LedgerClient, chat_id: str) -> None:
    key, session_id = new_session(client, chat_id)

    first = client.record_turn(
        session_id,
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello", "metadata": {"model": "m"}}],
        usage={"inputTokens": 12, "outputTokens": 3, "costUsd": 0.0004, "lastPromptTokens": 12},
    )
    started = client.start_turn(session_id)
    with pytest.raises(LedgerError) as in_flight:
        client.rollback(session_id, first["checkpointId"] or "")
    client.record_turn(session_id, [{"role": "user", "content": "more"}], status="failed")

    assert first["turnIndex"] == 1 and first["counters"]["totalTokens"] == 15 and first["checkpointId"]
    assert started["turnIndex"] == 2
    assert (in_flight.value.status, in_flight.value.code) == (409, "TURN_IN_FLIGHT")
    assert in_flight.value.operation == "rollback"
    session = client.get_session(session_id)
    assert session["turnCount"] == 2 and session["turnInFlight"] is None
    assert client.session_by_key(key)["lastPromptTokens"] == 12


def test_transcript_rewind_and_rewrite(client: LedgerClient, chat_id: str) -> None:
    _, session_id = new_session(client, chat_id)
    for text in ("one", "two", "three"):
        client.record_turn(session_id, [{"role": "user", "content": text}, {"role": "assistant", "content": f"re {text}"}])

    rewound = client.rewind(session_id, 2)
    live = client.get_transcript(session_id)["messages"]
    everything = client.get_transcript(session_id, include_deleted=True)["messages"]
    assert (rewound["turnsUndone"], rewound["rewoundCount"], rewound["targetText"]) == (2, 4, "two")
    assert [message["content"] for message in live] == ["one", "re one"]
    assert len(everything) == 6 and sum(1 for message in everything if message.get("deleted")) == 4

    rewritten = client.rewrite_transcript(session_id, [{"role": "system", "content": "summary of one"}])
    assert rewritten["replacedCount"] == 2 and rewritten["messageCount"] >= 1
    assert [message["content"] for message in client.get_transcript(session_id)["messages"]] == ["summary of one"]


def test_checkpoints_rollback_fork_children_and_tree(client: LedgerClient, chat_id: str) -> None:
    _, session_id = new_session(client, chat_id)
    client.record_turn(session_id, [{"role": "user", "content": "keep me"}])
    checkpoint = client.create_checkpoint(session_id, "before the mistake")
    client.record_turn(session_id, [{"role": "user", "content": "mistake"}])

    listed = client.list_checkpoints(session_id)
    rolled = client.rollback(session_id, checkpoint["checkpointId"])
    fork = client.fork_session(session_id, checkpoint_id=checkpoint["checkpointId"], agent_name="explorer")
    child = client.create_child(session_id, "researcher", metadata={"task": "look"})

    assert listed["checkpoints"][0]["revision"] > checkpoint["revision"]
    assert any(item["checkpointId"] == checkpoint["checkpointId"] and item["label"] == "before the mistake" for item in listed["checkpoints"])
    assert rolled["targetRevision"] == checkpoint["revision"]
    assert [message["content"] for message in client.get_transcript(session_id)["messages"]] == ["keep me"]
    assert fork["kind"] == "fork" and fork["parentSessionId"] == session_id
    assert [message["content"] for message in client.get_transcript(fork["sessionId"])["messages"]] == ["keep me"]

    children = client.list_children(session_id)
    tree = client.session_tree(session_id)
    parent = client.get_parent(child["sessionId"])
    assert {node["sessionId"] for node in children["children"]} == {fork["sessionId"], child["sessionId"]}
    assert tree["nodes"][0]["sessionId"] == session_id and len(tree["nodes"]) == 3
    assert parent["parent"]["sessionId"] == session_id

    destroyed = client.destroy_session(child["sessionId"])
    assert destroyed["destroyed"] == [child["sessionId"]]
    assert client.get_session(child["sessionId"])["status"] == "destroyed"


def test_state_time_travel_memory_and_slots(client: LedgerClient, chat_id: str) -> None:
    _, session_id = new_session(client, chat_id)
    client.set_memory(session_id, "topic", {"subject": "cats"}, metadata={"source": "test"})
    client.create_slot(session_id, "tools")
    client.switch_slot(session_id, "tools")
    client.record_turn(session_id, [{"role": "tool", "content": "ran", "toolCallId": "c1", "name": "shell"}])

    memory = client.get_memory(session_id)["entries"]
    slots = client.list_slots(session_id)
    state = client.session_state(session_id)
    before = client.session_state(session_id, revision=1)
    assert memory == [dict(memory[0], name="topic", value={"subject": "cats"}, metadata={"source": "test"})]
    assert slots["currentSlot"] == "tools" and {slot["name"] for slot in slots["slots"]} == {"main", "tools"}
    assert state["state"]["transcript"][0]["slot"] == "tools"
    assert before["revision"] == 1 and before["state"]["memory"][0]["name"] == "topic"
    assert client.get_transcript(session_id, slot="main")["messages"] == []

    client.remove_memory(session_id, "topic")
    with pytest.raises(LedgerError) as gone:
        client.remove_memory(session_id, "topic")
    assert gone.value.code == "MEMORY_ENTRY_NOT_FOUND"


def test_the_index_reads_its_own_writes(client: LedgerClient, chat_id: str) -> None:
    key, session_id = new_session(client, chat_id)
    client.record_turn(session_id, [{"role": "user", "content": "x"}], usage={"inputTokens": 5})

    listed = client.list_sessions(platform="discord", active_minutes=5, limit=500)
    record = client.session_record(session_id)
    exported = client.export_sessions_json()

    assert key in [entry["sessionKey"] for entry in listed["sessions"]]
    assert record["sessionKey"] == key and record["inputTokens"] == 5 and record["status"] == "active"
    assert exported[key]["session_id"] == session_id and exported[key]["origin"]["chat_id"] == chat_id


def test_events_of_a_session_and_of_a_conversation(client: LedgerClient, chat_id: str) -> None:
    key, session_id = new_session(client, chat_id)
    client.record_turn(session_id, [{"role": "user", "content": "x"}])
    client.suspend_conversation(key)

    session_events = client.session_events(session_id)
    first_page = client.conversation_events(key, limit=1)
    rest = client.conversation_events(key, from_revision=first_page["nextRevision"])

    assert [event["type"] for event in session_events["events"]] == ["SessionCreated", "TurnRecorded"]
    assert session_events["streamName"].endswith(session_id)
    assert first_page["events"][0]["revision"] == 0 and first_page["nextRevision"] == 1
    assert rest["events"][-1]["type"] == "Suspended"
