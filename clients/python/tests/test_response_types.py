"""Every answer matches the type its method declares: a scenario calls each method of LedgerClient against the real
service and checks the answer, field by field and nested, against the method's return annotation (TypedDicts,
lists, Optional, Literal), so the types cannot claim a field the service does not send or a value it never gives."""

from __future__ import annotations

import random
import string
import typing
import uuid
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from session_ledger import LedgerClient, SessionSource

STREAMS = {"events", "job_fires"}


def mismatches(value: Any, annotation: Any, path: str) -> list[str]:
    """Where ``value`` is not what ``annotation`` says (an empty list: it is)."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is Any:
        return []
    if origin is Union:
        if value is None and type(None) in args:
            return []
        # It fits one of the union's branches: report the closest.
        return min((mismatches(value, branch, path) for branch in args if branch is not type(None)), key=len)
    if origin is Literal:
        return [] if value in args else [f"{path}: {value!r} is not one of {args}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: not a list"]
        return [problem for index, item in enumerate(value) for problem in mismatches(item, args[0], f"{path}[{index}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        return [problem for key, item in value.items() for problem in mismatches(item, args[1], f"{path}.{key}")]
    if typing.is_typeddict(annotation):
        if not isinstance(value, dict):
            return [f"{path}: not an object"]
        missing = [f"{path}.{key}: missing" for key in sorted(annotation.__required_keys__) if key not in value]
        hints = get_type_hints(annotation)
        return missing + [problem for key, hint in hints.items() if key in value for problem in mismatches(value[key], hint, f"{path}.{key}")]
    if annotation is float:
        return [] if isinstance(value, (int, float)) and not isinstance(value, bool) else [f"{path}: {value!r} is not a number"]
    if annotation is int:
        return [] if isinstance(value, int) and not isinstance(value, bool) else [f"{path}: {value!r} is not an integer"]
    if annotation in (str, bool):
        return [] if isinstance(value, annotation) else [f"{path}: {value!r} is not {annotation.__name__}"]
    return []


def test_every_method_answers_what_its_return_type_says(client: LedgerClient) -> None:
    problems: list[str] = []
    called: set[str] = set()

    def call(name: str, *args: Any, **kwargs: Any) -> Any:
        answer = getattr(client, name)(*args, **kwargs)
        returns = get_type_hints(getattr(LedgerClient, name))["return"]
        problems.extend(mismatches(answer, returns, name))
        called.add(name)
        return answer

    chat = uuid.uuid4().hex[:12]
    call("health")
    call("ready")
    call("whoami")
    resolved = call("resolve_session", SessionSource("telegram", chat, user_name="Vera"), gateway_id="py-types")
    key, session_id = resolved["sessionKey"], resolved["sessionId"]
    call("get_conversation", key)
    call("update_conversation", key, last_prompt_tokens=42)
    call("conversation_context", key)
    word = "zebra" + "".join(random.choices(string.ascii_lowercase, k=12))
    turn = call("record_turn", session_id, [{"role": "user", "content": "hi"}, {"role": "assistant", "content": f"hello {word}"}])
    call("record_turn", session_id, [{"role": "user", "content": "again"}, {"role": "assistant", "content": "yes"}])
    call("get_session", session_id)
    hits = call("search", word, session_key=key)
    assert [hit["role"] for hit in hits["hits"]] == ["assistant"]
    grouped = call("search", word, group_by_session=True, hits_per_session=1)
    assert [session["sessionId"] for session in grouped["sessions"]] == [session_id]
    call("get_transcript", session_id)
    call("context_window", session_id, "anthropic", max_tokens=1000)
    call("create_checkpoint", session_id, "before rewind")
    call("list_checkpoints", session_id)
    call("rewind", session_id, 1)
    call("rollback", session_id, turn["checkpointId"])
    call("rewrite_transcript", session_id, [{"role": "user", "content": "rewritten"}])
    call("set_memory", session_id, "user.name", "Vera", metadata={"from": "profile"})
    call("get_memory", session_id)
    call("remove_memory", session_id, "user.name")
    call("create_slot", session_id, "research")
    call("switch_slot", session_id, "research")
    call("list_slots", session_id)
    call("switch_slot", session_id, "main")
    fork = call("fork_session", session_id, agent_name="planner")
    call("create_child", session_id, "researcher")
    call("list_children", session_id)
    call("get_parent", fork["sessionId"])
    call("session_tree", session_id)
    call("session_state", fork["sessionId"])
    call("session_state", session_id, revision=1)
    call("destroy_session", fork["sessionId"])
    call("session_events", session_id)
    call("conversation_events", key)
    call("start_turn", session_id)
    call("enqueue", key, {"text": "queued while busy"}, mode="queue")
    call("get_queue", key)
    call("next_queued", key)
    call("mark_resume_pending", key, "restart_timeout")
    call("clear_resume_pending", key)
    call("suspend_conversation", key, reason="operator")
    reset = call("reset_conversation", key)
    call("switch_session", key, session_id)
    call("list_sessions")
    call("session_by_key", key)
    call("session_record", reset["sessionId"])
    call("session_count", 2)
    call("export_sessions_json")
    call("gateway_stopping", "py-types", [key])
    call("gateway_stopped", "py-types")
    call("gateway_started", "py-types", "boot-2")
    call(
        "gateway_platforms",
        "py-types",
        [{"platform": "telegram", "displayName": "Vera's bot", "homeChannel": {"chatId": "-100", "name": "Ops"}}, {"platform": "discord"}],
    )

    job_id = f"digest-{chat}"
    call("create_job", {"id": job_id, "name": "Digest", "schedule": "* * * * *", "prompt": "Summarise"})
    call("import_jobs", [{"id": f"imported-{chat}", "schedule": "0 9 * * *", "skill": "news"}])
    call("list_jobs")
    fire = call("fire_job", job_id)
    call("report_run", job_id, fire["fireId"], "ok")
    call("update_job", job_id, {"enabled": False, "deliverTo": {"platform": "telegram", "chatId": chat}})
    call("get_job", job_id)
    call("delete_job", f"imported-{chat}")

    runtime_key = client.resolve_session(SessionSource("slack", f"C{chat}", chat_type="group"))["sessionKey"]
    call("get_runtime_binding", runtime_key)
    started = call("runtime_turn", runtime_key, "codex", "gpt-5", "fix the build")
    runtime_id = started["runtimeSessionId"]
    call("report_worker_event", runtime_id, {"type": "started"})
    call("report_worker_event", runtime_id, {"type": "approval_request", "approvalId": "appr-1", "details": {"command": "npm publish"}})
    call("runtime_pending", runtime_key)
    call("resolve_approval", runtime_id, "appr-1", "allow", remember="session")
    call("report_worker_event", runtime_id, {"type": "question", "questionId": "q-1"})
    call("answer_question", runtime_id, "q-1", "main")
    call("report_worker_event", runtime_id, {"type": "failed", "error": "tests failed"})
    call("get_runtime_binding", runtime_key)
    call("get_runtime_session", runtime_id)
    call("runtime_new", runtime_key, task="write the changelog", provider="claude")
    call("runtime_new", runtime_key)
    call("runtime_detach", runtime_key)

    namespace = f"py-types-{chat}"
    agent = call("put_agent_session", namespace, "conversation-1", agent_name="support-bot", metadata={"userId": "u-42"})
    call("put_agent_session", namespace, "conversation-1")
    call("create_agent_session", namespace)
    call("get_agent_session", namespace, "conversation-1")
    call("list_agent_sessions", namespace, metadata={"userId": "u-42"})
    call("append_items", agent["sessionId"], [{"id": "item-1", "type": "message"}, {"type": "tool_call"}])
    call("append_items", agent["sessionId"], [{"uuid": "u-1"}], id_field="uuid")
    call("list_items", agent["sessionId"], limit=2)
    call("list_items", agent["sessionId"], after="item-1")
    assert [entry["id"] for entry in call("list_items", agent["sessionId"], revision=1)["items"]] == ["item-1"]
    call("get_item", agent["sessionId"], "item-1")
    shared = {"namespace": namespace, "stateId": "user:u-42", "delta": {"theme": "dark"}}
    call("append_items", agent["sessionId"], [{"id": "item-2"}], state_delta={"step": 1}, shared_state_deltas=[shared])
    assert call("get_session_values", agent["sessionId"])["state"] == {"step": 1}
    assert call("change_session_values", agent["sessionId"], {"step": 2, "done": None})["state"] == {"step": 2, "done": None}
    assert call("get_shared_state", namespace, "user:u-42")["state"] == {"theme": "dark"}
    assert call("change_shared_state", namespace, "user:u-42", {"lang": "fr"})["state"] == {"theme": "dark", "lang": "fr"}
    call("pop_item", agent["sessionId"])
    call("clear_items", agent["sessionId"])
    call("pop_item", agent["sessionId"])
    call("delete_agent_session", namespace, "conversation-1")

    call("list_projections")
    call("get_projection", "session-tree")
    call("list_streams", category="conversation", limit=5)
    call("prune", 3650)
    call("erase_conversation", runtime_key)
    call("apply_retention", dry_run=True, content_days=1, keep_checkpoints=1)
    call("apply_retention", content_days=3650, keep_checkpoints=1)
    call("rebuild_projection", "stream-index")

    assert problems == []
    public = {name for name in vars(LedgerClient) if not name.startswith("_") and callable(getattr(LedgerClient, name))}
    assert public - STREAMS - {"observe_position"} - called == set(), "a method the scenario does not check"


def test_the_check_finds_a_field_the_answer_lacks_and_a_value_outside_a_literal() -> None:
    from session_ledger import api_types as api

    answer = {"sessionKey": "k", "state": "bound", "detachedRuntimeSessionId": None, "changed": True}
    assert mismatches(answer, api.RuntimeDetachResponse, "detach") == [
        "detach.position: missing",
        "detach.state: 'bound' is not one of ('unbound',)",
    ]
