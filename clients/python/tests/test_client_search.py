"""LedgerClient.search against the real service: hits with marked snippets, Chinese text, sessions, filters, pages."""

from __future__ import annotations

import uuid

import pytest

from session_ledger import LedgerClient, LedgerError, SessionSource


def test_search_finds_words_phrases_and_chinese_and_groups_by_session(client: LedgerClient, chat_id: str) -> None:
    topic = f"py{uuid.uuid4().hex[:10]}"
    session_id = client.resolve_session(SessionSource("telegram", chat_id, user_id="7"))["sessionId"]
    client.record_turn(
        session_id,
        [
            {"role": "user", "content": f"What did we decide about {topic} last week?"},
            {"role": "assistant", "content": f"{topic}: 我们决定使用PostgreSQL作为主数据库。"},
        ],
    )

    found = client.search(topic)
    assert len(found["hits"]) == 2 and found["nextCursor"] is None
    assert {hit["sessionId"] for hit in found["hits"]} == {session_id}

    chinese = client.search(f"{topic} 决定", role="assistant")
    [hit] = chinese["hits"]
    assert (hit["turnIndex"], hit["messageIndex"], hit["role"]) == (1, 1, "assistant")
    assert hit["snippet"] == f">>>{topic}<<<: 我们>>>决定<<<使用PostgreSQL作为主数据库。"
    assert [part["text"] for part in hit["snippetParts"] if part["match"]] == [topic, "决定"]

    assert client.search(f'"{topic} last" -week')["hits"] == []
    assert client.search(topic, platform="discord")["hits"] == []
    first_page = client.search(topic, limit=1)
    second_page = client.search(topic, limit=1, cursor=first_page["nextCursor"])
    assert first_page["hits"][0]["messageIndex"] != second_page["hits"][0]["messageIndex"]

    [session] = client.search(topic, group_by_session=True, hits_per_session=1)["sessions"]
    assert (session["sessionId"], session["hitCount"], len(session["hits"])) == (session_id, 2, 1)

    with pytest.raises(LedgerError) as refused:
        client.search(f"-{topic}")
    assert (refused.value.status, refused.value.code) == (400, "SEARCH_QUERY_HAS_NO_TERMS")
