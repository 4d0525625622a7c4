"""Type stubs for the native module (built from bindings/python/src)."""

import datetime
import os
from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Tuple, Union

from ._rows import Rows

__version__: str

#: A time argument: a datetime (naive ones are UTC), a date (its midnight,
#: UTC), or an ISO 8601 string such as "2024-05-01" or "2024-05-01T10:00:00Z".
TimeLike = Union[datetime.datetime, datetime.date, str]

#: A query parameter: text, a number, a bool, None, a Sym, a datetime or
#: date, a list of numbers (a vector), or the engine's JSON form
#: ({"sym": ...}, {"time": ...}, {"str": ...}).
Param = Union[str, int, float, bool, None, "Sym", datetime.datetime, datetime.date,
              Sequence[float], Mapping[str, str]]

Path = Union[str, "os.PathLike[str]"]

class Error(Exception):
    """Anything Chronolog could not do; the message says why. Raised by
    ``run`` or ``query`` after some steps of the script ran (a step: a
    statement, or a run of facts committed as one transaction), ``done``
    says how many: they stay done."""
    done: int

class QueryError(Error):
    """A script or query that does not parse or compile; the message
    shows line:column and a caret."""

class Sym:
    """A symbol (an interned name such as ``alice``) as a query parameter."""
    name: str
    def __init__(self, name: str) -> None: ...

class Query:
    """A query parsed and planned once (``Database.prepare``)."""
    def run(self, params: Optional[Mapping[str, Param]] = None) -> Rows: ...

class Database:
    """Datalog over bi-temporal relations, on disk at ``path`` or in memory."""
    def __init__(self, path: Optional[Path] = None,
                 embedder: Literal["default", "bge", "minilm", "potion", "hashing"] = "default",
                 read_only: bool = False) -> None:
        """``read_only``: read the existing database at ``path`` without
        creating or changing any file (a read-only mount works); other
        readers may open it too; writes raise ``Error``."""
    def run(self, script: str, params: Optional[Mapping[str, Param]] = None) -> Rows: ...
    def prepare(self, query: str) -> Query: ...
    def relations(self) -> List[Tuple[str, List[str]]]: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Database": ...
    def __exit__(self, *args: Any) -> bool: ...

class Item:
    """One piece of evidence in a context."""
    kind: Literal["fact", "episode"]
    id: str
    text: str
    said: str
    speaker: Optional[str]
    at: Optional[datetime.datetime]
    valid_from: Optional[datetime.datetime]
    valid_to: Optional[datetime.datetime]
    supersedes: Optional[str]
    sources: List[str]
    score: float
    tokens: int

class Context:
    """What a search returns: a small context for a prompt, or an abstention."""
    abstain: bool
    reason: Optional[str]
    tokens: int
    budget: int
    as_of: Optional[datetime.datetime]
    as_of_because: Optional[str]
    items: List[Item]
    text: str
    def to_json(self) -> Dict[str, Any]: ...

class FactVersion:
    """One version of a fact, with its valid and known intervals."""
    slot: str
    subject: str
    predicate: str
    object: str
    text: str
    confidence: float
    valid_from: Optional[datetime.datetime]
    valid_to: Optional[datetime.datetime]
    known_from: Optional[datetime.datetime]
    known_to: Optional[datetime.datetime]
    supersedes: Optional[str]
    elaborates: Optional[str]
    source: Optional[str]
    sources: List[str]

#: One message for ``Memory.add_many``.
MessageLike = Union[Mapping[str, Any], Tuple[str, str], Tuple[str, str, TimeLike]]

class Memory:
    """An agent memory: messages kept verbatim, consolidated into facts
    that supersede (never delete) each other, searched into a context."""
    def __init__(self, path: Optional[Path] = None,
                 embedder: Literal["default", "bge", "minilm", "potion", "hashing"] = "default",
                 background: bool = True) -> None: ...
    @property
    def embedder_name(self) -> str: ...
    def add(self, tenant: str, role: str, text: str, at: Optional[TimeLike] = None,
            session: Optional[str] = None, lang: Optional[str] = None) -> str: ...
    def add_many(self, tenant: str, messages: Iterable[MessageLike]) -> List[str]: ...
    def pin_language(self, tenant: str, lang: Optional[str]) -> None: ...
    def pinned_language(self, tenant: str) -> Optional[str]: ...
    def consolidate(self) -> Dict[str, int]: ...
    def search(self, tenant: str, question: str, as_of: Optional[TimeLike] = None,
               known_at: Optional[TimeLike] = None, budget: Optional[int] = None,
               rerank: Optional[int] = None, lang: Optional[str] = None) -> Context: ...
    def search_at_budgets(self, tenant: str, question: str, budgets: Sequence[int],
                          as_of: Optional[TimeLike] = None,
                          known_at: Optional[TimeLike] = None) -> List[Context]: ...
    def history(self, tenant: str, subject: str) -> List[FactVersion]: ...
    def facts(self, tenant: str, as_of: Optional[TimeLike] = None,
              known_at: Optional[TimeLike] = None) -> List[FactVersion]: ...
    def forget(self, tenant: str, subject: str) -> Dict[str, Any]:
        """Erases the subject; counts (`episodes`, `facts`, `rewritten`,
        `aliases`, `rows`) and the written `forms` looked for."""
        ...
    def query(self, script: str, params: Optional[Mapping[str, Param]] = None) -> Rows: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Memory": ...
    def __exit__(self, *args: Any) -> bool: ...
