"""A memory served by ``chronolog serve``, with the methods of ``Memory``.

``chronolog.connect(url, key)`` returns a ``RemoteMemory``: the same calls
(``add``, ``add_many``, ``consolidate``, ``search``, ``history``,
``timeline``, ``forget``, ``query``) over the server's HTTP/JSON API
(docs/server.md), so several processes share one memory. Answers are
plain objects with the attributes of ``Context``, ``Item`` and
``FactVersion``; times are UTC ``datetime``s. The server's refusal (a bad
time, another tenant, an unknown key) raises ``RemoteError`` with its
HTTP status and code. Only the standard library is used.

With a tenant's key, ``tenant`` may be ``None`` (the key's own tenant);
with an admin key, every call names it.
"""

from __future__ import annotations

import datetime
import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from ._rows import Rows

TimeLike = Union[str, datetime.date, datetime.datetime]


class RemoteError(Exception):
    """The server refused a call (``status`` 0: it could not be reached)."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status = status
        self.code = code


def _time(value: Optional[str]) -> Optional[datetime.datetime]:
    if value is None:
        return None
    text = value.replace("Z", "+00:00")
    if "T" not in text:
        text += "T00:00:00+00:00"
    moment = datetime.datetime.fromisoformat(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.astimezone(datetime.timezone.utc)


def _iso(value: Optional[TimeLike]) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None:
            raise ValueError("a datetime without a time zone is ambiguous; give tzinfo")
        return value.astimezone(datetime.timezone.utc).isoformat().replace("+00:00", "Z")
    return value.isoformat()


@dataclass
class RemoteItem:
    """One piece of evidence in a context (as ``Item``)."""

    kind: str
    id: str
    text: str
    speaker: Optional[str]
    at: Optional[datetime.datetime]
    valid_from: Optional[datetime.datetime]
    valid_to: Optional[datetime.datetime]
    supersedes: Optional[str]
    sources: List[str]
    score: float

    @classmethod
    def of(cls, item: Mapping[str, Any]) -> "RemoteItem":
        return cls(kind=item["kind"], id=item["id"], text=item["text"],
                   speaker=item.get("speaker"), at=_time(item.get("at")),
                   valid_from=_time(item.get("valid_from")),
                   valid_to=_time(item.get("valid_to")),
                   supersedes=item.get("supersedes"), sources=list(item.get("sources") or []),
                   score=float(item.get("score") or 0.0))


@dataclass
class RemoteContext:
    """What a search returns (as ``Context``); ``to_json()`` is the server's answer."""

    abstain: bool
    reason: Optional[str]
    tokens: int
    budget: int
    as_of: Optional[datetime.datetime]
    as_of_because: Optional[str]
    items: List[RemoteItem]
    text: str
    evidence_score: Optional[float]
    _json: Dict[str, Any] = field(repr=False, default_factory=dict)

    @classmethod
    def of(cls, answer: Dict[str, Any]) -> "RemoteContext":
        return cls(abstain=answer["abstain"], reason=answer.get("reason"),
                   tokens=answer["tokens"], budget=answer["budget"],
                   as_of=_time(answer.get("as_of")), as_of_because=answer.get("as_of_because"),
                   items=[RemoteItem.of(i) for i in answer.get("items", [])],
                   text=answer["text"], evidence_score=answer.get("evidence_score"),
                   _json=answer)

    def to_json(self) -> Dict[str, Any]:
        return dict(self._json)


@dataclass
class RemoteFactVersion:
    """One version of a fact (as ``FactVersion``)."""

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

    @classmethod
    def of(cls, v: Mapping[str, Any]) -> "RemoteFactVersion":
        return cls(slot=v["slot"], subject=v["subject"], predicate=v["predicate"],
                   object=v["object"], text=v["text"], confidence=float(v["confidence"]),
                   valid_from=_time(v.get("valid_from")), valid_to=_time(v.get("valid_to")),
                   known_from=_time(v.get("known_from")), known_to=_time(v.get("known_to")),
                   supersedes=v.get("supersedes"), elaborates=v.get("elaborates"),
                   source=v.get("source"), sources=list(v.get("sources") or []))


class RemoteMemory:
    """A memory on a ``chronolog serve`` server; see the module's doc."""

    def __init__(self, url: str, key: str, timeout: float = 120.0):
        self.url = url.rstrip("/")
        self._key = key
        self._timeout = timeout

    def _call(self, path: str, body: Optional[Dict[str, Any]] = None) -> Any:
        data = None if body is None else json.dumps(
            {k: v for k, v in body.items() if v is not None}).encode()
        request = urllib.request.Request(self.url + path, data=data,
                                         method="GET" if body is None else "POST")
        request.add_header("Authorization", f"Bearer {self._key}")
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            try:
                detail = json.loads(error.read())["error"]
                raise RemoteError(error.code, detail["code"], detail["message"]) from None
            except (ValueError, KeyError, TypeError):
                raise RemoteError(error.code, "http", str(error)) from None
        except urllib.error.URLError as error:
            raise RemoteError(0, "unreachable",
                              f"cannot reach the server at {self.url}: {error.reason}") from None

    def add(self, tenant: Optional[str], role: str, text: str, at: Optional[TimeLike] = None,
            session: Optional[str] = None, lang: Optional[str] = None) -> str:
        """Stores one message (in ``lang``, when given: en, zh or de); its episode id."""
        answer = self._call("/v1/remember", {"tenant": tenant, "role": role, "text": text,
                                             "at": _iso(at), "session": session, "lang": lang})
        return answer["episodes"][0]

    def pin_language(self, tenant: Optional[str], lang: Optional[str]) -> None:
        """Pins the language the tenant's messages and questions are read in
        (en, zh, de; None unpins)."""
        self._call("/v1/language", {"tenant": tenant, "pin": lang or "none"})

    def pinned_language(self, tenant: Optional[str] = None) -> Optional[str]:
        """The language the tenant is pinned to, or None."""
        return self._call("/v1/language", {"tenant": tenant})["lang"]

    def add_many(self, tenant: Optional[str], messages: Iterable[Any]) -> List[str]:
        """Stores messages (dicts with role, text, at, session, lang; or (role, text[, at])
        tuples) in one batch, all or nothing."""
        batch = []
        for m in messages:
            if isinstance(m, Mapping):
                m = dict(m)
                if "at" in m:
                    m["at"] = _iso(m["at"])
                batch.append({k: v for k, v in m.items() if v is not None})
            else:
                role, text, *rest = m
                batch.append({"role": role, "text": text, **({"at": _iso(rest[0])} if rest else {})})
        return self._call("/v1/remember", {"tenant": tenant, "messages": batch})["episodes"]

    def consolidate(self) -> Dict[str, int]:
        """Consolidates every message not consolidated yet; the counts."""
        return self._call("/v1/consolidate", {})

    def status(self) -> Dict[str, Any]:
        """Consolidation's progress and who this key is."""
        return self._call("/v1/status")

    def search(self, tenant: Optional[str], question: str, as_of: Optional[TimeLike] = None,
               known_at: Optional[TimeLike] = None, budget: Optional[int] = None,
               rerank: Optional[int] = None, lang: Optional[str] = None) -> RemoteContext:
        """The context that answers ``question``, or an abstention."""
        return RemoteContext.of(self._call("/v1/recall", {
            "tenant": tenant, "question": question, "as_of": _iso(as_of),
            "known_at": _iso(known_at), "budget": budget, "rerank": rerank, "lang": lang}))

    def history(self, tenant: Optional[str], subject: str) -> List[RemoteFactVersion]:
        """Every version of every fact about ``subject``."""
        answer = self._call("/v1/history", {"tenant": tenant, "subject": subject})
        return [RemoteFactVersion.of(v) for v in answer["versions"]]

    def timeline(self, tenant: Optional[str] = None) -> List[RemoteFactVersion]:
        """Every fact version of the tenant."""
        answer = self._call("/v1/timeline", {"tenant": tenant})
        return [RemoteFactVersion.of(v) for v in answer["versions"]]

    def forget(self, tenant: Optional[str], subject: str) -> Dict[str, Any]:
        """Erases the subject; the erasure's counts."""
        return self._call("/v1/forget", {"tenant": tenant, "subject": subject})

    def query(self, script: str, params: Optional[Mapping[str, Any]] = None) -> Rows:
        """One read-only Datalog query; with a tenant's key it must read that
        tenant's rows only (``mem_episode(I, $tenant, ...)``). At most 500 rows come back."""
        answer = self._call("/v1/query", {"query": script,
                                          "params": dict(params) if params else None})
        return Rows(answer["columns"], answer["rows"])

    def close(self) -> None:
        """Nothing to release: each call is its own request."""

    def __enter__(self) -> "RemoteMemory":
        return self

    def __exit__(self, *args: Any) -> bool:
        return False


def connect(url: str, key: str, timeout: float = 120.0) -> RemoteMemory:
    """The memory served at ``url`` (``http://127.0.0.1:7700``), called with ``key``."""
    return RemoteMemory(url, key, timeout)


__all__: Sequence[str] = ["RemoteContext", "RemoteError", "RemoteFactVersion", "RemoteItem",
                          "RemoteMemory", "connect"]
