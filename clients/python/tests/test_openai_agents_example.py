"""examples/python-openai-agents against the real service: two runs of the offline chat continue one history."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from session_ledger.openai_agents import LedgerSession

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples" / "python-openai-agents"))

import openai_agents_chat  # noqa: E402


def test_a_second_run_with_the_session_id_continues_the_history(
    ledger_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("SESSION_ID", raising=False)
    monkeypatch.setenv("LEDGER_URL", ledger_url)
    asyncio.run(openai_agents_chat.main("hello"))
    first = capsys.readouterr().out.splitlines()
    assert first[0] == "echo: hello (1 so far)" and first[1].endswith(": 2 items")
    session_id = first[1].split()[1]

    monkeypatch.setenv("SESSION_ID", session_id)
    asyncio.run(openai_agents_chat.main("again"))
    assert capsys.readouterr().out.splitlines()[0] == "echo: again (2 so far)"
    history = asyncio.run(LedgerSession(session_id, url=ledger_url).get_items())
    assert [item["content"] for item in history] == ["hello", "echo: hello (1 so far)", "again", "echo: again (2 so far)"]
