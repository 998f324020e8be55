"""The real service for the tests: built from this repository, started once per test run on a free port, in memory."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Iterator

import pytest

REPOSITORY = Path(__file__).resolve().parents[3]
SERVICE_ENTRY = REPOSITORY / "dist" / "src" / "main.js"

sys.path.insert(0, str(Path(__file__).resolve().parent))

from session_ledger import LedgerClient, LedgerSessionStore, RetryOptions  # noqa: E402


def _newest_source_change() -> float:
    newest = 0.0
    for folder in ("src", "examples"):
        for path in (REPOSITORY / folder).rglob("*.ts"):
            newest = max(newest, path.stat().st_mtime)
    return newest


def _ensure_built() -> None:
    """Builds with ``npm run build`` unless ``dist`` is newer than every TypeScript source (CI has just built)."""
    if SERVICE_ENTRY.exists() and SERVICE_ENTRY.stat().st_mtime >= _newest_source_change():
        return
    subprocess.run(["npm", "run", "build"], cwd=REPOSITORY, check=True, stdout=subprocess.DEVNULL)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_healthy(url: str, process: subprocess.Popen[bytes], log: Path, deadline: float) -> None:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the service exited with {process.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the service did not answer /health in time:\n{log.read_text()[-4000:]}")


# Tokens of the second service (tenanted_ledger_url): each names a tenant of its own, which starts empty.
TENANT_TOKENS = {"first": "first-tenant-secret-0123456789", "second": "second-tenant-secret-0123456789"}


@contextlib.contextmanager
def running_service(**settings: str) -> Iterator[str]:
    """The built service on a free port with ``settings`` as its environment (``DATA_DIR``, ``DATABASE_URL``, …): its URL
    while the block runs, stopped with SIGTERM after it."""
    _ensure_built()
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("API_TOKEN", "EVENT_STORE_URL", "DATABASE_URL", "PORT", "HOST", "DATA_DIR")
    }
    environment.update(
        PORT=str(port),
        HOST="127.0.0.1",
        DATA_DIR="memory://",
        LOG_LEVEL="warn",
        # Tests fire jobs themselves; a short read wait shows the client retrying a read model that lags.
        JOB_TICK_INTERVAL_MS="0",
        READ_WAIT_TIMEOUT_MS="1000",
    )
    environment.update(settings)
    log = Path(tempfile.mkdtemp(prefix="ledger-pytest-")) / "service.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            ["node", str(SERVICE_ENTRY)], cwd=REPOSITORY, env=environment, stdout=output, stderr=subprocess.STDOUT
        )
    try:
        _wait_until_healthy(url, process, log, time.monotonic() + 300)
        yield url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def ledger_url() -> Iterator[str]:
    with running_service() as url:
        yield url


@pytest.fixture(scope="session")
def tenanted_ledger_url() -> Iterator[str]:
    """A second service whose tokens each have a tenant of their own: what a test sees there is its own doing."""
    with running_service(API_TOKEN=",".join(f"{tenant}-bot:write:{tenant}={secret}" for tenant, secret in TENANT_TOKENS.items())) as url:
        yield url


@pytest.fixture
def client(ledger_url: str) -> LedgerClient:
    return LedgerClient(ledger_url, retry=RetryOptions(base_delay=0.05, max_elapsed=10.0))


@pytest.fixture
def store(ledger_url: str) -> LedgerSessionStore:
    return LedgerSessionStore(ledger_url, gateway_id=f"pytest-{uuid.uuid4().hex[:8]}")


@pytest.fixture
def chat_id() -> str:
    """A chat of its own for each test: the service is shared by the whole run."""
    return uuid.uuid4().hex[:12]


@pytest.fixture(autouse=True)
def _bodies_match_their_operations(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every body a call sends has only the top-level fields its operation declares, so the drift test
    (test_openapi_drift.py), which checks the declared fields against /openapi.json, covers what is really sent."""
    from session_ledger import transport
    from session_ledger.operations import OPERATIONS

    original = transport.Transport.call

    def checked(self, name, params=None, **options):  # type: ignore[no-untyped-def]
        body = options.get("body", transport.NO_BODY)
        if isinstance(body, dict):
            undeclared = set(body) - set(OPERATIONS[name].body or ())
            assert not undeclared, f"{name} sends {sorted(undeclared)}, which operations.py does not declare"
        return original(self, name, params, **options)

    monkeypatch.setattr(transport.Transport, "call", checked)
