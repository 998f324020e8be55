"""Session Ledger for Python: the HTTP client, and Hermes' gateway ``SessionStore`` kept by the ledger."""

from .api_types import LedgerEntry, LifecycleEvent, Message, TurnUsage
from .client import LedgerClient
from .entry import SessionEntry
from .errors import LedgerError, LedgerNetworkError
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
    "LifecycleEvent",
    "Message",
    "RetryOptions",
    "SessionEntry",
    "SessionSource",
    "TurnUsage",
]
__version__ = "0.1.0"
