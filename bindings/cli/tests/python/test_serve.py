"""`chronolog serve` driven by real clients: the official MCP Python SDK
over streamable HTTP at /mcp, and plain HTTP from the standard library.

Run by `cargo test` (bindings/cli/tests/mcp.rs), which sets CHRONOLOG_BIN
to the `chronolog` binary it built. Each test starts a real server process
on a fresh database directory, on a free loopback port.
"""

import json
import re
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from contextlib import asynccontextmanager, contextmanager

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from mcp_helpers import BIN, run, text


def add_key(db, *args):
    """A new key: `chronolog keys DB add ...` prints it alone on its last line."""
    out = subprocess.run([BIN, "keys", str(db), "add", *args],
                         check=True, capture_output=True, text=True).stdout
    return out.strip().splitlines()[-1]


@contextmanager
def served(db):
    """A `chronolog serve` process and its URL; its standard error is kept."""
    proc = subprocess.Popen(
        [BIN, "serve", str(db), "--listen", "127.0.0.1:0", "--embedder", "hashing"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    log = []
    found = threading.Event()

    def drain():
        for line in proc.stderr:
            log.append(line)
            if "listening on" in line:
                found.set()

    threading.Thread(target=drain, daemon=True).start()
    try:
        assert found.wait(60), "".join(log)
        url = re.search(r"listening on (http://\S+)", "".join(log)).group(1)
        yield proc, url, log
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def http(url, key, path, body=None):
    """(status, JSON body) of a plain HTTP call."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method="GET" if body is None else "POST")
    request.add_header("Content-Type", "application/json")
    if key:
        request.add_header("Authorization", f"Bearer {key}")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@asynccontextmanager
async def mcp_session(url, key):
    client = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    async with client:
        async with streamable_http_client(url + "/mcp", http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def test_two_mcp_clients_share_one_memory_each_in_its_own_tenant(tmp_path):
    db = tmp_path / "db"
    alice, bob = add_key(db, "--tenant", "alice"), add_key(db, "--tenant", "bob")

    async def main(url):
        # Two agents at once on one database: no lock error.
        async with mcp_session(url, alice) as a, mcp_session(url, bob) as b:
            tools = {tool.name for tool in (await a.list_tools()).tools}
            assert {"remember", "recall", "history", "forget"} <= tools
            first = await a.call_tool(
                "remember", {"role": "user", "text": "I work at Tencent in Shenzhen.",
                             "at": "2021-03-01"})
            assert not first.is_error, text(first)
            assert first.structured_content["episode"] == "alice/e1"
            second = await b.call_tool(
                "remember", {"role": "user", "text": "I play the cello on Sundays."})
            assert second.structured_content["episode"] == "bob/e2"

            mine = await a.call_tool("recall", {"question": "Where do I work? Tencent", "rerank": 0})
            assert not mine.is_error, text(mine)
            assert "Tencent" in text(mine)
            theirs = await b.call_tool("recall", {"question": "Where do I work? Tencent", "rerank": 0})
            assert "Tencent" not in json.dumps(theirs.structured_content["items"])

            # A tenant's key cannot name another tenant, and its Datalog
            # reads its own rows only.
            refused = await b.call_tool(
                "recall", {"tenant": "alice", "question": "Where do I work?"})
            assert refused.is_error and "this key is for tenant" in text(refused)
            query = await b.call_tool("query", {"query": "?- mem_episode(I, T, _, _, _, _, X)."})
            assert query.is_error and "$tenant" in text(query)
            own = await b.call_tool("query",
                                    {"query": "?- mem_episode(I, $tenant, _, _, _, _, X)."})
            assert not own.is_error, text(own)
            assert [row[0] for row in own.structured_content["rows"]] == ["bob/e2"]

    with served(db) as (proc, url, log):
        run(main(url))
        # One log line per request, with its status.
        assert any("/mcp" in line and "200" in line for line in log), "".join(log)


def test_an_mcp_call_without_a_valid_key_is_refused(tmp_path):
    db = tmp_path / "db"
    add_key(db, "--tenant", "alice")
    with served(db) as (proc, url, log):
        for key in [None, "chronolog_deadbeef_" + "0" * 64]:
            status, body = http(url, key, "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert status == 401, body
            assert body["error"]["code"] == "unauthorized"


def test_sigterm_finishes_and_releases_the_database(tmp_path):
    db = tmp_path / "db"
    key = add_key(db, "--admin")
    with served(db) as (proc, url, log):
        status, body = http(url, key, "/v1/remember",
                            {"tenant": "alice", "role": "user", "text": "My cat is called Luna."})
        assert status == 200, body
        assert body["episodes"] == ["alice/e1"]
        status, body = http(url, key, "/v1/status")
        assert status == 200 and body["caller"]["admin"], body
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, "".join(log)
    # The lock is free and the message is there.
    out = subprocess.run([BIN, str(db), "-e", "?- mem_episode(I, alice, _, _, _, _, X)."],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "Luna" in out.stdout


def test_keys_are_listed_without_secrets_and_revoked(tmp_path):
    db = tmp_path / "db"
    key = add_key(db, "--tenant", "alice", "--read-only")
    listed = subprocess.run([BIN, "keys", str(db), "list"], check=True,
                            capture_output=True, text=True).stdout
    key_id = key.split("_")[1]
    assert key_id in listed and "tenant alice, read-only" in listed
    assert key.split("_")[2] not in listed
    subprocess.run([BIN, "keys", str(db), "revoke", key_id], check=True, capture_output=True)
    bad = subprocess.run([BIN, "keys", str(db), "revoke", key_id], capture_output=True, text=True)
    assert bad.returncode != 0 and "no key" in bad.stderr
    # With no key left the server will not start.
    out = subprocess.run([BIN, "serve", str(db), "--listen", "127.0.0.1:0"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "no key can call this server" in out.stderr


def test_commands_and_stdio_mcp_clients_go_through_a_running_server(tmp_path):
    from mcp import StdioServerParameters, stdio_client

    db = tmp_path / "db"
    add_key(db, "--tenant", "nobody")

    def cli(*args):
        out = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout

    async def stdio_agents():
        # Two stdio MCP servers on the database the server holds: both work.
        params = StdioServerParameters(command=BIN, args=["mcp", str(db), "--tenant", "alice"])
        async with stdio_client(params) as (r1, w1), stdio_client(params) as (r2, w2):
            async with ClientSession(r1, w1) as one, ClientSession(r2, w2) as two:
                await one.initialize()
                await two.initialize()
                first = await one.call_tool(
                    "remember", {"role": "user", "text": "My dog is called Rex."})
                assert not first.is_error, text(first)
                found = await two.call_tool("recall", {"question": "What is my dog called? Rex",
                                                       "rerank": 0})
                assert not found.is_error, text(found)
                assert "Rex" in text(found)
                history = await two.call_tool("history", {"subject": "user"})
                assert not history.is_error, text(history)

    with served(db) as (proc, url, log):
        assert (db / "server.json").exists()
        ids = cli("remember", str(db), "--tenant", "alice", "--role", "user",
                  "I moved to Berlin last month.", "--at", "2024-06-15")
        assert ids.strip() == "alice/e1"
        assert "consolidated" in cli("consolidate", str(db))
        answer = cli("recall", str(db), "--tenant", "alice", "--rerank", "0", "Where do I live?")
        assert "Berlin" in answer and "tokens" in answer
        assert cli("language", str(db), "--tenant", "alice", "de") == "alice: pinned to de\n"
        assert cli("language", str(db), "--tenant", "alice") == "alice: pinned to de\n"
        assert cli("language", str(db), "--tenant", "alice", "none").startswith(
            "alice: not pinned")
        run(stdio_agents())
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, "".join(log)
    # The server is gone and so is its file: the commands open the database.
    assert not (db / "server.json").exists()
    assert "Rex" in cli("recall", str(db), "--tenant", "alice", "--rerank", "0", "Rex")


def test_a_kill_9_mid_load_loses_no_acknowledged_message(tmp_path):
    db = tmp_path / "db"
    key = add_key(db, "--tenant", "alice")
    admin = add_key(db, "--admin")
    acknowledged = []
    with served(db) as (proc, url, log):
        stop = threading.Event()

        def writer(n):
            i = 0
            while not stop.is_set():
                try:
                    status, body = http(url, key, "/v1/remember",
                                        {"role": "user", "text": f"Writer {n}, note {i}."})
                except Exception:
                    return  # the server is gone
                if status == 200:
                    acknowledged.extend(body["episodes"])
                i += 1

        threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 60
        while len(acknowledged) < 40 and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.kill()  # SIGKILL, mid-write
        proc.wait()
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    assert len(acknowledged) >= 40, acknowledged
    # A new server on the same database (the dead one's server.json and
    # lock are no obstacle) has every message it acknowledged.
    with served(db) as (proc, url, log):
        status, rows = http(url, admin, "/v1/query",
                            {"query": "?- mem_episode(I, alice, _, _, _, _, _)."})
        assert status == 200, rows
        assert not rows["truncated"], rows["total"]
        stored = {row[0] for row in rows["rows"]}
        assert [i for i in acknowledged if i not in stored] == []


def remote_client_module():
    """`chronolog._client` from the package's source, without the compiled
    extension the package's `__init__` imports (this test builds only the
    `chronolog` binary)."""
    import sys
    import types
    from pathlib import Path

    source = Path(__file__).resolve().parents[3] / "python" / "python" / "chronolog"
    if "chronolog" not in sys.modules:
        package = types.ModuleType("chronolog")
        package.__path__ = [str(source)]
        sys.modules["chronolog"] = package
    import chronolog._client as client
    return client


def test_the_python_client_has_the_memorys_methods_over_the_server(tmp_path):
    client = remote_client_module()
    db = tmp_path / "db"
    key, admin = add_key(db, "--tenant", "alice"), add_key(db, "--admin")
    with served(db) as (proc, url, log):
        with client.connect(url, key) as mem:
            assert mem.add(None, "user", "I work at Tencent in Shenzhen.", at="2021-03-01") \
                == "alice/e1"
            assert mem.add_many("alice", [("user", "Big news: I just joined Moonshot!",
                                           "2024-06-01")]) == ["alice/e2"]
            # The server's worker may have consolidated some already.
            assert mem.consolidate()["episodes"] in (0, 1, 2)
            assert mem.status()["pending"] == 0
            context = mem.search(None, "Where do I work?", rerank=0)
            assert not context.abstain and "Moonshot" in context.text
            assert context.tokens <= context.budget == 2000
            assert all(i.id.startswith("alice/") for i in context.items if i.kind == "episode")
            jobs = [v for v in mem.history(None, "user")
                    if v.predicate == "works_at" and v.known_to is None]
            assert [v.object for v in jobs] == ["Tencent", "Moonshot"]
            assert jobs[0].valid_from.year == 2021 and jobs[0].valid_from.tzinfo is not None
            then = mem.search(None, "Where do I work?", as_of="2022-01-01", rerank=0)
            assert "Tencent" in then.text
            try:
                mem.search("bob", "Where does Bob work?")
                raise AssertionError("another tenant was reachable")
            except client.RemoteError as error:
                assert error.status == 403 and error.code == "forbidden"
            try:
                mem.add(None, "user", "hi", at="the day after")
                raise AssertionError("a bad time was stored")
            except client.RemoteError as error:
                assert error.status == 400 and "at" in str(error)
            assert mem.forget(None, "Tencent")["episodes"] == 1
            assert mem.pinned_language() is None
            mem.pin_language(None, "de")
            assert mem.pinned_language(None) == "de"
            mem.pin_language(None, None)
            assert mem.pinned_language() is None
            assert mem.add(None, "user", "Ich mag Jazz.", lang="de") == "alice/e3"
        rows = client.connect(url, admin).query(
            "?- mem_episode(I, T, _, _, _, _, _), T = $t.", {"t": {"sym": "alice"}})
        assert rows.columns == ["I", "T"] and [r["I"] for r in rows] == ["alice/e2", "alice/e3"]
    try:
        client.connect(url, key).status()
        raise AssertionError("a stopped server answered")
    except client.RemoteError as error:
        assert error.status == 0
