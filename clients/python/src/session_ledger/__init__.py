"""Session Ledger for Python: the HTTP client, Hermes' gateway ``SessionStore`` kept by the ledger, and the OpenAI Agents
SDK's ``Session`` (``session_ledger.openai_agents.LedgerSession``)."""

from .api_types import LedgerEntry, LifecycleEvent, Message, TurnUsage
from .client import LedgerClient
from .entry import SessionEntry
from .errors import LedgerError, LedgerNetworkError, LedgerUnavailableError
from .retry_policy import RetryOptions
from .source import SessionSource
from .store import LedgerSessionStore
from .transport import Exchange

__all__ = [
    "Exchange",
    "LedgerClient",
    "LedgerEntry",
    "LedgerError",
    "LedgerNetworkError",
    "LedgerSessionStore",
    "LedgerUnavailableError",
    "LifecycleEvent",
    "Message",
    "RetryOptions",
    "SessionEntry",
    "SessionSource",
    "TurnUsage",
]
__version__ = "0.1.0"
