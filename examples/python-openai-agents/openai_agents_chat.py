"""A chat whose history Session Ledger keeps, through the OpenAI Agents SDK's ``Session``: run it again with the same
SESSION_ID, on any host, and it remembers. With ``openai-agents`` installed and OPENAI_API_KEY set, the SDK's Runner
answers; otherwise an echo stands in for the model and the session is used as the Runner uses it."""

from __future__ import annotations

import asyncio
import os
import sys

from session_ledger.openai_agents import LedgerSession


async def answer(session: LedgerSession, text: str) -> str:
    if os.environ.get("OPENAI_API_KEY"):
        from agents import Agent, Runner  # pip install openai-agents

        result = await Runner.run(Agent(name="Assistant", instructions="Reply very concisely."), text, session=session)
        return str(result.final_output)
    # What the Runner does with a session: read the history for the model, then append the turn's items.
    history = await session.get_items()
    reply = f"echo: {text} ({len(history) // 2 + 1} so far)"
    await session.add_items([{"role": "user", "content": text}, {"role": "assistant", "content": reply}])
    return reply


async def main(text: str) -> None:
    session = LedgerSession(
        os.environ.get("SESSION_ID"),
        url=os.environ.get("LEDGER_URL", "http://127.0.0.1:3000"),
        token=os.environ.get("LEDGER_TOKEN"),
    )
    print(await answer(session, text))
    items = await session.get_items()
    print(f"session {session.session_id} (ledger {await session.ledger_session_id()}): {len(items)} items")
    print(f"continue it: SESSION_ID={session.session_id} python3 {sys.argv[0]} 'And then?'")


if __name__ == "__main__":
    asyncio.run(main(" ".join(sys.argv[1:]) or "What is the weather in Paris?"))
