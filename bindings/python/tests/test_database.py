"""chronolog.Database: Datalog from Python, parameters, errors, files."""

import datetime as dt
import threading

import pytest

import chronolog
from chronolog import Sym

UTC = dt.timezone.utc

STORY = """
:create works_at(person: sym key, company: sym).
works_at(alice, tencent) valid 2021-03-01.
works_at(alice, moonshot) valid 2024-06-01.
works_at(bob, tencent) valid 2020-01-01.
"""


@pytest.fixture
def db():
    with chronolog.Database(embedder="hashing") as db:
        db.run(STORY)
        yield db


def test_rows_are_dicts_in_a_list_with_their_columns(db):
    rows = db.run("?- works_at(P, C).")
    assert isinstance(rows, list) and isinstance(rows, chronolog.Rows)
    assert rows.columns == ["P", "C"]
    assert sorted((r["P"], r["C"]) for r in rows) == [("alice", "moonshot"), ("bob", "tencent")]
    assert sorted(rows.tuples()) == [("alice", "moonshot"), ("bob", "tencent")]


def test_a_script_without_a_query_returns_no_rows(db):
    rows = db.run("works_at(carol, acme) valid 2023-01-01.")
    assert rows == [] and rows.columns == []


def test_parameters_bind_symbols_times_numbers_and_text(db):
    then = db.run("?- works_at($p, C) as_of $t.", {"p": Sym("alice"), "t": dt.date(2022, 1, 1)})
    assert then == [{"C": "tencent"}]
    now = db.run("?- works_at($p, C) as_of $t.",
                 {"p": Sym("alice"), "t": dt.datetime(2025, 1, 1, tzinfo=UTC)})
    assert now == [{"C": "moonshot"}]
    # The engine's JSON parameter form works too.
    iso = db.run("?- works_at($p, C) as_of $t.", {"p": {"sym": "alice"}, "t": {"time": "2022-01-01"}})
    assert iso == [{"C": "tencent"}]
    assert db.run("?- X = $n + 1.", {"n": 41}) == [{"X": 42}]
    assert db.run("?- X = $f * 2.0.", {"f": 1.25}) == [{"X": 2.5}]


def test_times_come_back_as_utc_datetimes_and_open_ends_as_none(db):
    rows = db.run("?- history works_at(alice, C).")
    by_company = {r["C"]: r for r in rows}
    tencent, moonshot = by_company["tencent"], by_company["moonshot"]
    assert tencent["valid_from"] == dt.datetime(2021, 3, 1, tzinfo=UTC)
    assert tencent["valid_to"] == dt.datetime(2024, 6, 1, tzinfo=UTC)
    assert moonshot["valid_to"] is None
    assert moonshot["tx_from"].tzinfo is not None


def test_a_prepared_query_runs_many_times(db):
    query = db.prepare("?- works_at($p, C) as_of $t.")
    t = dt.date(2022, 1, 1)
    assert query.run({"p": Sym("bob"), "t": t}) == [{"C": "tencent"}]
    assert query.run({"p": Sym("alice"), "t": t}) == [{"C": "tencent"}]
    assert query.run({"p": Sym("nobody"), "t": t}) == []
    with pytest.raises(chronolog.QueryError, match="one query"):
        db.prepare("works_at(x, y).")


def test_language_errors_show_line_column_and_a_caret(db):
    with pytest.raises(chronolog.QueryError) as caught:
        db.run("?- works_at(P,\n   C")
    message = str(caught.value)
    assert "2:" in message and "^" in message
    with pytest.raises(chronolog.QueryError, match="nope"):
        db.run("?- nope(X).")
    assert issubclass(chronolog.QueryError, chronolog.Error)
    # A failed script changed nothing.
    assert len(db.run("?- works_at(P, C).")) == 2


def test_a_script_that_fails_midway_says_what_it_wrote(db):
    # Issue 35 item 11: the first batch commits, the second is refused.
    with pytest.raises(chronolog.Error) as caught:
        db.run(":create w(p: sym key, c: sym).\nw(bob, acme).\n?- w(P, C).\nw(bob, 42).")
    assert caught.value.done == 3, str(caught.value)
    message = str(caught.value)
    assert "4:" in message and "stay done" in message, message
    # What it says is what is there: the first batch, not the second.
    assert db.run("?- w(P, C).") == [{"P": "bob", "C": "acme"}]
    with pytest.raises(chronolog.QueryError) as caught:
        db.run("?- nope(X).")
    assert caught.value.done == 0


def test_a_read_only_database_reads_beside_another_and_writes_nothing(tmp_path):
    path = tmp_path / "db"
    with chronolog.Database(path, embedder="hashing") as writer:
        writer.run(":create w(p: sym key, c: sym).\nw(bob, acme) valid 2021-01-01.")
    files = {p: p.read_bytes() for p in path.rglob("*") if p.is_file()}
    first = chronolog.Database(path, embedder="hashing", read_only=True)
    second = chronolog.Database(path, embedder="hashing", read_only=True)
    for db in (first, second):
        assert db.run("?- w(P, C).") == [{"P": "bob", "C": "acme"}]
        with pytest.raises(chronolog.Error, match="read-only"):
            db.run("w(carol, initech).")
        db.close()
    assert {p: p.read_bytes() for p in path.rglob("*") if p.is_file()} == files
    with pytest.raises(chronolog.Error, match="nothing to read"):
        chronolog.Database(tmp_path / "none", embedder="hashing", read_only=True)
    with pytest.raises(chronolog.Error, match="path"):
        chronolog.Database(None, read_only=True)


def test_bad_parameters_are_type_errors(db):
    with pytest.raises(TypeError, match=r"\$t"):
        db.run("?- works_at(P, C) as_of $t.", {"t": object()})
    with pytest.raises(TypeError, match="vector"):
        db.run("?- X = $v.", {"v": ["a", "b"]})
    # A str is text, not a time: pass a datetime or a date.
    with pytest.raises(chronolog.Error, match="needs a time"):
        db.run("?- works_at(P, C) as_of $t.", {"t": "2022-01-01"})


def test_a_closed_database_refuses_calls():
    db = chronolog.Database(embedder="hashing")
    query = db.prepare("?- X = 1.")
    db.close()
    with pytest.raises(chronolog.Error, match="closed"):
        db.run("?- X = 1.")
    with pytest.raises(chronolog.Error, match="closed"):
        query.run()


def test_a_database_on_disk_reopens_with_its_facts(tmp_path):
    path = tmp_path / "db"
    with chronolog.Database(path, embedder="hashing") as db:
        db.run(STORY)
    with chronolog.Database(str(path), embedder="hashing") as db:
        assert db.run("?- works_at(alice, C) as_of 2022-01-01.") == [{"C": "tencent"}]
        names = dict(db.relations())
        assert names["works_at"] == ["person", "company"]


def test_threads_share_a_database(db):
    errors = []

    def reader():
        try:
            for _ in range(50):
                assert len(db.run("?- works_at(P, C).")) >= 2
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for i in range(20):
        db.run(f"works_at(p{i}, acme) valid 2023-01-01.")
    for t in threads:
        t.join()
    assert not errors
    assert len(db.run("?- works_at(P, acme).")) == 20


def test_to_pandas_makes_a_dataframe(db):
    pandas = pytest.importorskip("pandas")
    frame = db.run("?- works_at(P, C).").to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns) == ["P", "C"] and len(frame) == 2
