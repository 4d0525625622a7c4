"""Chronolog: an embedded bi-temporal Datalog database and agent memory.

``Database`` runs Datalog over relations whose facts carry valid time and
transaction time. ``Memory`` keeps an agent's conversations losslessly,
consolidates them into facts that supersede (never delete) each other, and
answers a question with a small, as-of, provenance-tagged context.

    >>> import chronolog
    >>> mem = chronolog.Memory(embedder="hashing")
    >>> mem.add("alice", "user", "I work at Tencent.", at="2021-03-01")
    'alice/e1'
    >>> "Tencent" in mem.search("alice", "Where do I work?").text
    True
"""

from ._chronolog import (
    Context,
    Database,
    Error,
    FactVersion,
    Item,
    Memory,
    Query,
    QueryError,
    Sym,
    __version__,
)
from ._client import RemoteError, RemoteMemory, connect
from ._rows import Rows

__all__ = [
    "Context",
    "Database",
    "Error",
    "FactVersion",
    "Item",
    "Memory",
    "Query",
    "QueryError",
    "RemoteError",
    "RemoteMemory",
    "Rows",
    "Sym",
    "__version__",
    "connect",
]
