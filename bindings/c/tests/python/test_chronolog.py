"""Chronolog through ctypes, as a Python program would use it.

Run by tests/c_and_python.rs: python3 test_chronolog.py LIBCHRONOLOG DB_DIR.
Exits non-zero (an AssertionError) on the first failed check."""

import ctypes
import json
import sys
import threading

(OK, NULL_POINTER, INVALID_UTF8, INVALID_HANDLE, QUERY_ERROR, INVALID_ARGUMENT, STORAGE_ERROR,
 INTERNAL_ERROR, STOPPED, LIMIT) = range(10)


class Chronolog:
    """A thin, typed wrapper: what a Python binding would be."""

    def __init__(self, lib_path):
        lib = ctypes.CDLL(lib_path)
        c_str, out_str = ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)
        lib.chronolog_open.argtypes = [c_str, ctypes.POINTER(ctypes.c_uint64)]
        lib.chronolog_open_read_only.argtypes = [c_str, ctypes.POINTER(ctypes.c_uint64)]
        lib.chronolog_close.argtypes = [ctypes.c_uint64]
        lib.chronolog_execute.argtypes = [ctypes.c_uint64, c_str, c_str, out_str]
        lib.chronolog_free_string.argtypes = [ctypes.c_void_p]
        lib.chronolog_cancel.argtypes = [ctypes.c_uint64]
        lib.chronolog_set_timeout.argtypes = [ctypes.c_uint64, ctypes.c_uint64]
        lib.chronolog_embedder.argtypes = [ctypes.c_uint64, out_str]
        lib.chronolog_last_error.restype = c_str
        lib.chronolog_version.restype = c_str
        handle = ctypes.c_uint64
        lib.chronolog_memory_open.argtypes = [c_str, ctypes.POINTER(handle)]
        lib.chronolog_memory_close.argtypes = [handle]
        lib.chronolog_memory_add.argtypes = [handle, c_str, c_str, c_str, c_str, c_str, out_str]
        lib.chronolog_memory_consolidate.argtypes = [handle, out_str]
        lib.chronolog_memory_search.argtypes = [handle, c_str, c_str, c_str, out_str]
        lib.chronolog_memory_history.argtypes = [handle, c_str, c_str, out_str]
        lib.chronolog_memory_forget.argtypes = [handle, c_str, c_str, out_str]
        lib.chronolog_memory_execute.argtypes = [handle, c_str, c_str, out_str]
        lib.chronolog_memory_cancel.argtypes = [handle]
        lib.chronolog_memory_set_timeout.argtypes = [handle, ctypes.c_uint64]
        for name in ("open", "open_read_only", "close", "execute", "free_string", "cancel", "set_timeout",
                     "embedder", "memory_open", "memory_close", "memory_add", "memory_consolidate",
                     "memory_search", "memory_history", "memory_forget", "memory_execute",
                     "memory_cancel", "memory_set_timeout"):
            getattr(lib, "chronolog_" + name).restype = ctypes.c_int32
        self.lib = lib

    def error(self):
        message = self.lib.chronolog_last_error()
        return message.decode() if message else None

    def take(self, status, out):
        """The returned string, freed; or the status and message."""
        if status != OK:
            assert not out.value, "out must be cleared on error"
            return status, self.error()
        text = ctypes.string_at(out.value).decode()
        assert self.lib.chronolog_free_string(out) == OK
        return status, text

    def open(self, path):
        handle = ctypes.c_uint64(0)
        status = self.lib.chronolog_open(path.encode() if path else None, ctypes.byref(handle))
        assert status == OK, self.error()
        return handle.value

    def execute(self, db, script, params=None):
        out = ctypes.c_void_p()
        status = self.lib.chronolog_execute(
            db, script.encode(), json.dumps(params).encode() if params else None, ctypes.byref(out))
        status, text = self.take(status, out)
        return (status, json.loads(text)) if status == OK else (status, text)

    # The agent memory.

    def memory_open(self, path):
        handle = ctypes.c_uint64(0)
        status = self.lib.chronolog_memory_open(path.encode() if path else None,
                                                ctypes.byref(handle))
        assert status == OK, self.error()
        return handle.value

    def memory_call(self, name, memory, *args):
        """Calls chronolog_memory_NAME(memory, *args, &out): (status, JSON or message)."""
        out = ctypes.c_void_p()
        encoded = [a.encode() if isinstance(a, str) else a for a in args]
        status = getattr(self.lib, "chronolog_memory_" + name)(memory, *encoded, ctypes.byref(out))
        status, text = self.take(status, out)
        if status == OK and name != "add":
            return status, json.loads(text)
        return status, text


def check_memory(c, path):
    mem = c.memory_open(path)
    status, first = c.memory_call("add", mem, "alice", "user", "I work at Tencent in Shenzhen.",
                                  "2021-03-01", None)
    assert (status, first) == (OK, "alice/e1"), (status, first)
    status, second = c.memory_call("add", mem, "alice", "user",
                                   "Big news: I just joined Moonshot!", "2024-06-01", "s2")
    assert (status, second) == (OK, "alice/e2"), (status, second)
    status, _ = c.memory_call("add", mem, "bob", "user", "I work at Apple.", None, None)
    assert status == OK
    assert c.memory_call("add", mem, "a/b", "user", "x", None, None)[0] == INVALID_ARGUMENT
    assert c.memory_call("add", mem, "alice", None, "x", None, None)[0] == NULL_POINTER
    # A limit or a bad field is the caller's argument, named (issue 35 item 5).
    for args, field in [(("r" * 5000, "x", None), "role"),
                        (("user", "x" * (256 * 1024 + 1), None), "text"),
                        (("user", "x", "9999-12-31"), "at")]:
        status, message = c.memory_call("add", mem, "alice", *args, None)
        assert status == INVALID_ARGUMENT and f"`{field}`" in message, (status, message)
    # A budget is a whole number of tokens, 0 up (0 holds nothing; a huge
    # one all that was found); anything else is refused, naming it.
    for budget in [0, 18446744073709551615]:
        status, context = c.memory_call("search", mem, "alice", "Where do I work?",
                                        json.dumps({"budget": budget}))
        assert status == OK and context["budget"] == budget, (budget, status, context)
    assert c.memory_call("search", mem, "alice", "Where do I work?", None)[1]["abstain"] is False
    for budget in [-1, 1.5, "10"]:
        status, message = c.memory_call("search", mem, "alice", "q", json.dumps({"budget": budget}))
        assert status == INVALID_ARGUMENT and "budget" in message, (budget, status, message)
    status, report = c.memory_call("consolidate", mem)
    # The background worker may have done some already; after this call
    # every episode is consolidated.
    assert status == OK and set(report) >= {"episodes", "facts", "restated"}, report

    status, context = c.memory_call("search", mem, "alice", "Where do I work?", None)
    assert status == OK and not context["abstain"], context
    assert "works at Moonshot" in context["items"][0]["text"], context
    assert context["items"][0]["supersedes"] == "Tencent", context
    assert context["text"].startswith("Facts:"), context
    assert context["tokens"] <= context["budget"] == 2000
    status, then = c.memory_call("search", mem, "alice", "Where do I work?",
                                 json.dumps({"as_of": "2022-01-01", "budget": 200}))
    assert "works at Tencent" in then["items"][0]["text"], then
    assert then["budget"] == 200 and then["tokens"] <= 200, then
    status, bobs = c.memory_call("search", mem, "bob", "Where do I work? Tencent Moonshot", None)
    assert "Tencent" not in json.dumps(bobs["items"]), bobs
    status, message = c.memory_call("search", mem, "alice", "q", '{"budget": "lots"}')
    assert status == INVALID_ARGUMENT and "budget" in message, (status, message)

    status, versions = c.memory_call("history", mem, "alice", "user")
    believed = [v for v in versions if v["predicate"] == "works_at" and v["known_to"] is None]
    assert [v["object"] for v in believed] == ["Tencent", "Moonshot"], versions
    assert believed[0]["valid_to"] == "2024-06-01" and believed[1]["valid_to"] is None

    # Threads share a memory handle.
    errors = []

    def worker(n):
        for i in range(10):
            status, out = c.memory_call("add", mem, "t", "user", f"note {n}-{i}", None, None)
            if status != OK:
                errors.append(out)
            status, out = c.memory_call("search", mem, "t", "note", None)
            if status != OK:
                errors.append(out)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors

    # Datalog over the memory's relations, through its own handle.
    status, out = c.memory_call(
        "execute", mem, "?- mem_fact(_, $t, _, works_at, Company, _, _) as_of $when.",
        json.dumps({"t": {"sym": "alice"}, "when": {"time": "2022-01-01"}}))
    assert status == OK and out == [{"rows": {"columns": ["Company"], "rows": [["Tencent"]]}}], out
    status, message = c.memory_call("execute", mem, "?- mem_fact(X).", None)
    assert status == QUERY_ERROR and "mem_fact" in message, (status, message)

    status, gone = c.memory_call("forget", mem, "alice", "Tencent")
    assert status == OK and gone["episodes"] == 1, gone
    assert c.lib.chronolog_memory_close(mem) == OK
    assert c.lib.chronolog_memory_close(mem) == INVALID_HANDLE
    assert c.memory_call("search", mem, "alice", "q", None)[0] == INVALID_HANDLE

    mem = c.memory_open(path)
    # A timeout stops a search (issue 35 item 9; a consolidation's stop
    # between messages is tested in the memory crate, as the background
    # worker may have consolidated these already).
    for i in range(300):
        status, _ = c.memory_call("add", mem, "slow", "user",
                                  f"On day {i} I walked {i} miles along the river with Bo.",
                                  None, None)
        assert status == OK
    assert c.lib.chronolog_memory_set_timeout(mem, 1) == OK
    status, message = c.memory_call("search", mem, "slow", "How far did I walk with Bo?", None)
    assert status == STOPPED and "time limit" in message, (status, message)
    assert c.lib.chronolog_memory_set_timeout(mem, 0) == OK
    status, report = c.memory_call("consolidate", mem)
    assert status == OK, (status, report)
    status, context = c.memory_call("search", mem, "slow", "How far did I walk with Bo?", None)
    assert status == OK and not context["abstain"], context
    assert c.lib.chronolog_memory_cancel(mem) == OK
    assert c.lib.chronolog_memory_cancel(424242) == INVALID_HANDLE
    status, context = c.memory_call("search", mem, "alice", "Moonshot Tencent", None)
    assert "alice/e2" in json.dumps(context) and "Shenzhen" not in json.dumps(context), context
    status, out = c.memory_call("add", mem, "t", "user", "one more", None, None)
    # Episode numbers run across the memory (3 messages, 40 notes, 300
    # walks, this).
    assert out == "t/e344", out
    assert c.lib.chronolog_memory_close(mem) == OK


def main(lib_path, db_dir):
    c = Chronolog(lib_path)
    assert c.lib.chronolog_version().decode().count(".") == 2

    db = c.open(db_dir)
    # The test runs without the model: the handle says which embedder it
    # uses (and the library warned on standard error, checked by the caller).
    out = ctypes.c_void_p()
    status, text = c.take(c.lib.chronolog_embedder(db, ctypes.byref(out)), out)
    assert status == OK, text
    assert json.loads(text) == {"embedder": "hashing-384", "stand_in": True}, text
    status, out = c.execute(db, """
        :create works_at(person: sym key, company: sym).
        works_at(alice, tencent) valid 2021-03-01.
        works_at(alice, moonshot) valid 2024-06-01.
        let t1 = 2022-01-01.
        ?- works_at(alice, Y) as_of t1.
    """)
    assert status == OK, out
    assert out[0] == {"created": "works_at"}, out
    assert out[1]["committed"]["added"] == 2, out
    assert out[-1] == {"rows": {"columns": ["Y"], "rows": [["tencent"]]}}, out

    status, out = c.execute(db, "?- works_at($p, Y) as_of $t.",
                            {"p": {"sym": "alice"}, "t": {"time": "2025-01-01"}})
    assert out == [{"rows": {"columns": ["Y"], "rows": [["moonshot"]]}}], out

    # Errors come back as statuses with the language's message.
    status, message = c.execute(db, "?- nope(X).")
    assert status == QUERY_ERROR and "unknown relation `nope`" in message, (status, message)
    # A value over a limit is LIMIT, not a storage failure (issue 35 item 5).
    status, message = c.execute(db, "works_at(alice, '" + "x" * 5000 + "').")
    assert status == LIMIT and "4096" in message, (status, message[:200])
    status, message = c.execute(db, ":create " + "r" * 1_000_000 + "(x: int).")
    assert status == LIMIT, (status, message[:200])
    # A type error is the script's, not the disk's.
    status, message = c.execute(db, "works_at(alice, 42).")
    assert status == QUERY_ERROR, (status, message[:200])
    assert "^" in message, message
    status, message = c.execute(db, "?- works_at(X, Y).", {"p": {"sym": 3}})
    assert status == INVALID_ARGUMENT, (status, message)
    out = ctypes.c_void_p()
    assert c.lib.chronolog_execute(db, b"?- works_at(\xff, Y).", None, ctypes.byref(out)) == INVALID_UTF8
    assert c.lib.chronolog_execute(db, None, None, ctypes.byref(out)) == NULL_POINTER
    # An error partway reports what ran before it.
    status, message = c.execute(db, ":create partial(x: int). partial(1). ?- nope(X).")
    assert status == QUERY_ERROR and "stay done" in message, message
    assert '{"created":"partial"}' in message and '"added":1' in message, message
    # A bad batch of facts changes nothing.
    status, _ = c.execute(db, 'works_at(bob, acme). works_at(carol, 42) valid 2020-01-01.')
    assert status == QUERY_ERROR
    _, out = c.execute(db, "?- works_at(bob, C).")
    assert out[0]["rows"]["rows"] == [], out

    # One handle, several threads.
    errors = []

    def worker():
        for _ in range(10):
            status, out = c.execute(db, "?- works_at(alice, Y) as_of 2022-01-01.")
            if status != OK or out[0]["rows"]["rows"] != [["tencent"]]:
                errors.append((status, out))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors

    # A k past every row is answered, never an allocation that aborts the
    # process; one past the limit (-1 wrapped to 2^32 - 1) is refused.
    status, out = c.execute(db, ':create doc(id: sym key, text: str search). '
                                'doc(a, "tencent in shenzhen"). doc(b, "moonshot"). '
                                '?- bm25(doc, "tencent", $k).', {"k": 10_000_000})
    assert status == OK and len(out[-1]["rows"]["rows"]) == 1, (status, out)
    status, message = c.execute(db, '?- bm25(doc, "x", 4294967295).')
    assert status == QUERY_ERROR and "k must be between 1" in message, (status, message)

    # A runaway query is stopped from another thread, and by a timeout;
    # the handle stays usable.
    facts = " ".join(f"n({i})." for i in range(2000))
    status, out = c.execute(db, ":create n(x: int). " + facts)
    assert status == OK, out
    runaway = "?- n(A), n(B), n(C), n(D)."
    result = {}

    def run_away():
        result["status"], result["out"] = c.execute(db, runaway)

    thread = threading.Thread(target=run_away)
    thread.start()
    thread.join(0.5)
    assert thread.is_alive(), "the runaway query should still be running"
    # The handle's other calls are not held up by it.
    other = {}

    def ask():
        other["status"], other["out"] = c.execute(db, "?- works_at(alice, Y) as_of 2022-01-01.")

    asker = threading.Thread(target=ask)
    asker.start()
    asker.join(60)
    assert not asker.is_alive(), "a query waited for the runaway one"
    assert other["status"] == OK, other
    assert other["out"] == [{"rows": {"columns": ["Y"], "rows": [["tencent"]]}}], other
    assert thread.is_alive(), "it was answered while the runaway query ran"
    assert c.lib.chronolog_cancel(db) == OK
    thread.join(30)
    assert not thread.is_alive(), "cancel stopped the query"
    assert result["status"] == STOPPED and "cancelled" in result["out"], result
    assert c.lib.chronolog_set_timeout(db, 200) == OK
    status, message = c.execute(db, runaway)
    assert status == STOPPED and "time limit" in message, (status, message)
    assert c.lib.chronolog_set_timeout(db, 0) == OK
    status, out = c.execute(db, "?- works_at(alice, Y) as_of 2022-01-01.")
    assert out == [{"rows": {"columns": ["Y"], "rows": [["tencent"]]}}], out
    assert c.lib.chronolog_cancel(424242) == INVALID_HANDLE

    # Close stops what runs on the handle and returns once it has, the
    # directory free again (issue 35 item 2).
    thread = threading.Thread(target=run_away)
    thread.start()
    thread.join(0.5)
    assert thread.is_alive(), "the runaway query should still be running"
    assert c.lib.chronolog_close(db) == OK, c.error()
    thread.join(5)
    assert not thread.is_alive(), "close returned while the query still ran"
    assert result["status"] == STOPPED, result
    db = c.open(db_dir)
    status, out = c.execute(db, "?- works_at(alice, Y) as_of 2022-01-01.")
    assert out == [{"rows": {"columns": ["Y"], "rows": [["tencent"]]}}], out

    # Double free and double close are errors, not crashes.
    out = ctypes.c_void_p()
    assert c.lib.chronolog_execute(db, b"?- works_at(X, Y).", None, ctypes.byref(out)) == OK
    assert c.lib.chronolog_free_string(out) == OK
    assert c.lib.chronolog_free_string(out) == INVALID_ARGUMENT
    assert c.lib.chronolog_close(db) == OK
    assert c.lib.chronolog_close(db) == INVALID_HANDLE
    assert c.lib.chronolog_close(424242) == INVALID_HANDLE

    # Read-only handles read side by side and write nothing (issue 35 item 6).
    readers = []
    for _ in range(2):
        handle = ctypes.c_uint64(0)
        status = c.lib.chronolog_open_read_only(db_dir.encode(), ctypes.byref(handle))
        assert status == OK, c.error()
        readers.append(handle.value)
    for reader in readers:
        status, out = c.execute(reader, "?- works_at(alice, Y) as_of 2022-01-01.")
        assert out == [{"rows": {"columns": ["Y"], "rows": [["tencent"]]}}], out
        status, message = c.execute(reader, "works_at(carol, acme).")
        assert status == STORAGE_ERROR and "read-only" in message, (status, message)
    handle = ctypes.c_uint64(0)
    assert c.lib.chronolog_open_read_only(None, ctypes.byref(handle)) == NULL_POINTER
    status = c.lib.chronolog_open_read_only((db_dir + "-none").encode(), ctypes.byref(handle))
    assert status == STORAGE_ERROR and handle.value == 0, (status, c.error())
    for reader in readers:
        assert c.lib.chronolog_close(reader) == OK

    in_memory = c.open(None)
    status, out = c.execute(in_memory, ":relations.")
    assert out == [{"relations": []}], out
    assert c.lib.chronolog_close(in_memory) == OK
    check_memory(c, db_dir + "-memory")
    print("all Python checks passed")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
