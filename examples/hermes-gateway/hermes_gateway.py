"""A minimal Hermes-style gateway on LedgerSessionStore: resolve, one turn at a time per chat, a durable queue for
messages that arrive meanwhile, /new and /stop, and restart recovery after a crash.

Run it against a ledger (``npm start`` in the repository) and type ``chat: text`` lines::

    LEDGER_URL=http://127.0.0.1:3000 python3 examples/hermes-gateway/hermes_gateway.py
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import uuid
from typing import Any, Callable, Optional

from session_ledger import LedgerSessionStore, SessionSource

logger = logging.getLogger("hermes_gateway")

Agent = Callable[[list[dict[str, Any]]], str]
"""Answers the conversation so far (Hermes' message dicts, the newest user message last)."""
Send = Callable[[SessionSource, str], None]


def echo_agent(history: list[dict[str, Any]]) -> str:
    """Stands for the model call: says what it was asked and how long the conversation is."""
    asked = next((message["content"] for message in reversed(history) if message["role"] == "user"), "")
    return f"echo: {asked} ({sum(1 for message in history if message['role'] == 'user')} so far)"


class HermesGateway:
    """The loop of a Hermes gateway, with its ``SessionStore`` swapped for :class:`LedgerSessionStore`."""

    def __init__(self, store: LedgerSessionStore, agent: Agent, send: Send) -> None:
        self.store = store
        self.agent = agent
        self.send = send
        self.boot_id = uuid.uuid4().hex
        self.resumed: list[str] = []
        self._busy: set[str] = set()
        self._lock = threading.Lock()
        self._workers: list[threading.Thread] = []

    def start(self) -> None:
        """Tells the ledger this gateway started. After a crash it answers which conversations were cut off
        mid-turn; each is continued in its own session (the crashed gateway's unanswered message answered first,
        then whatever was queued meanwhile)."""
        # It continues what a crash cut short itself, so the ledger queues no continuation of its own.
        started = self.store.client.gateway_started(self.store.gateway_id, self.boot_id, auto_continue=False)
        for target in started["resume"]:
            self.resumed.append(target["sessionKey"])
            source = SessionSource.from_ledger(target["origin"])
            self._run_if_idle(source, target["sessionKey"], first_text=None)

    def handle(self, source: SessionSource, text: str) -> None:
        """One incoming message: a command, a turn, or (while the chat's agent is busy) a queued message."""
        entry = self.store.get_or_create_session(source)
        if text.strip() == "/new":
            self.store.reset_session(entry.session_key)
            self.send(source, "started a new session")
            return
        if text.strip() == "/stop":
            self.store.suspend_session(entry.session_key)
            self.send(source, "stopped; your next message starts a new session")
            return
        self._run_if_idle(source, entry.session_key, first_text=text)

    def stop(self, timeout: float = 30.0) -> None:
        """A clean shutdown: turns in flight past ``timeout`` are marked for resume; then the clean marker."""
        with self._lock:
            active = sorted(self._busy)
        self.store.client.gateway_stopping(self.store.gateway_id, active, mode="shutdown")
        for worker in list(self._workers):
            worker.join(timeout)
        with self._lock:
            timed_out = sorted(self._busy)
        self.store.client.gateway_stopped(self.store.gateway_id, drain_timed_out=timed_out)

    def wait_idle(self, timeout: float = 30.0) -> None:
        for worker in list(self._workers):
            worker.join(timeout)

    def _run_if_idle(self, source: SessionSource, session_key: str, first_text: Optional[str]) -> None:
        with self._lock:
            if session_key in self._busy:
                if first_text is not None:
                    # Durable: it survives this process; whichever gateway runs the chat next answers it.
                    self.store.client.enqueue(session_key, {"text": first_text}, mode="queue")
                return
            self._busy.add(session_key)
        worker = threading.Thread(target=self._work, args=(source, session_key, first_text), daemon=True)
        self._workers.append(worker)
        worker.start()

    def _work(self, source: SessionSource, session_key: str, first_text: Optional[str]) -> None:
        try:
            if first_text is not None:
                self._turn(source, first_text)
            else:
                self._answer_left_unanswered(source)
            while True:
                # Taken under the lock that enqueueing holds: a message queued now is either taken here or
                # finds this chat idle and starts its own turn.
                with self._lock:
                    queued = self.store.client.next_queued(session_key)
                    if queued is None:
                        self._busy.discard(session_key)
                        return
                self._turn(source, queued["message"]["text"] or "")
        except Exception:
            logger.exception("the turn of %s failed", session_key)
            with self._lock:
                self._busy.discard(session_key)

    def _turn(self, source: SessionSource, text: str) -> None:
        entry = self.store.get_or_create_session(source)
        # The user's message is recorded before the agent runs, so a crash mid-turn leaves it for the next gateway.
        self.store.append_to_transcript(entry.session_id, {"role": "user", "content": text})
        self._reply(source, entry.session_id)

    def _answer_left_unanswered(self, source: SessionSource) -> None:
        entry = self.store.get_or_create_session(source)
        history = self.store.load_transcript(entry.session_id)
        if history and history[-1]["role"] == "user":
            self._reply(source, entry.session_id)

    def _reply(self, source: SessionSource, session_id: str) -> None:
        answer = self.agent(self.store.load_transcript(session_id))
        self.store.append_to_transcript(session_id, {"role": "assistant", "content": answer})
        self.send(source, answer)


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    store = LedgerSessionStore(os.environ.get("LEDGER_URL", "http://127.0.0.1:3000"), os.environ.get("LEDGER_TOKEN"), gateway_id="console-hermes")
    gateway = HermesGateway(store, echo_agent, lambda source, text: print(f"[{source.chat_id}] {text}", flush=True))
    gateway.start()
    print("type 'chat: text' lines (Ctrl-D to stop)", flush=True)
    try:
        for line in sys.stdin:
            chat, _, text = line.rstrip("\n").partition(":")
            if text:
                gateway.handle(SessionSource("console", chat.strip(), user_name=chat.strip()), text.strip())
    finally:
        gateway.wait_idle()
        gateway.stop()


if __name__ == "__main__":
    main()
