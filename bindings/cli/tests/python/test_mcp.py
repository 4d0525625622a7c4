"""`chronolog mcp` driven by the official MCP Python SDK's stdio client.

Run by `cargo test` (bindings/cli/tests/mcp.rs), which sets CHRONOLOG_BIN
to the `chronolog` binary it built. Each test starts a real server process
on a fresh database directory and talks to it over stdin/stdout.
"""

import asyncio
import json
import time
from contextlib import asynccontextmanager

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from mcp_helpers import BIN, run, text


@asynccontextmanager
async def server(db, *extra):
    params = StdioServerParameters(command=BIN, args=["mcp", str(db), "--embedder", "hashing", *extra])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def test_lists_five_tools_each_with_a_schema_and_a_description(tmp_path):
    async def main():
        async with server(tmp_path / "db") as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert sorted(tools) == ["forget", "history", "query", "recall", "remember"]
            for tool in tools.values():
                assert len(tool.description) > 40, tool.name
                assert tool.input_schema["type"] == "object"
            remember = tools["remember"].input_schema
            assert set(remember["required"]) == {"role", "text"}
            assert {"tenant", "at", "session", "lang"} <= set(remember["properties"])
            assert set(tools["recall"].input_schema["required"]) == {"question"}
            assert set(tools["query"].input_schema["required"]) == {"query"}

    run(main())


def test_a_message_named_german_is_read_in_german(tmp_path):
    async def main():
        async with server(tmp_path / "db") as session:
            # Too short for detection, which would read it as English.
            said = await session.call_tool(
                "remember",
                {"tenant": "carl", "role": "user", "text": "Ich mag Jazz.",
                 "at": "2024-01-01", "lang": "de"})
            assert not said.is_error, text(said)
            bad = await session.call_tool(
                "remember",
                {"tenant": "carl", "role": "user", "text": "Ich mag Jazz.", "lang": "xx"})
            assert bad.is_error and "not a language served" in text(bad)
            deadline = time.monotonic() + 60
            while True:
                history = await session.call_tool("history", {"tenant": "carl", "subject": "user"})
                objects = [v["object"] for v in history.structured_content["versions"]]
                if objects or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            assert objects == ["Jazz"]

    run(main())


def test_an_agent_remembers_recalls_traces_history_and_forgets(tmp_path):
    async def main():
        async with server(tmp_path / "db") as session:
            first = await session.call_tool(
                "remember",
                {"tenant": "alice", "role": "user", "text": "I work at Tencent in Shenzhen.",
                 "at": "2021-03-01"},
            )
            assert not first.is_error, text(first)
            assert first.structured_content["episode"] == "alice/e1"
            second = await session.call_tool(
                "remember",
                {"tenant": "alice", "role": "user", "text": "Big news: I just joined Moonshot!",
                 "at": "2024-06-01", "session": "s2"},
            )
            assert second.structured_content["episode"] == "alice/e2"
            await session.call_tool(
                "remember",
                {"tenant": "bob", "role": "user", "text": "I work at Moonshot too.",
                 "at": "2024-07-01"},
            )

            # Consolidation runs in the background: facts appear shortly.
            deadline = time.monotonic() + 60
            while True:
                history = await session.call_tool("history", {"tenant": "alice", "subject": "user"})
                assert not history.is_error, text(history)
                versions = history.structured_content["versions"]
                # Versions still believed (a superseded belief stays, closed
                # in transaction time, for "as known at" questions).
                jobs = [v for v in versions
                        if v["predicate"] == "works_at" and v["known_to"] is None]
                if len(jobs) == 2 or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            assert [v["object"] for v in jobs] == ["Tencent", "Moonshot"]
            assert jobs[0]["valid_from"] == "2021-03-01"
            assert jobs[0]["valid_to"] == "2024-06-01"
            assert jobs[1]["supersedes"] == "Tencent"
            assert jobs[1]["source"] == "alice/e2"
            assert "Moonshot" in text(history)

            now = await session.call_tool(
                "recall", {"tenant": "alice", "question": "Where do I work?"})
            assert not now.is_error, text(now)
            context = now.structured_content
            assert not context["abstain"]
            assert context["tokens"] <= context["budget"] == 2000
            assert "Moonshot" in text(now)
            assert all(item["id"].startswith("alice/") for item in context["items"]
                       if item["kind"] == "episode")

            then = await session.call_tool(
                "recall", {"tenant": "alice", "question": "Where do I work?",
                           "as_of": "2022-01-01", "budget": 300, "lang": "en"})
            facts = [i for i in then.structured_content["items"] if i["kind"] == "fact"]
            assert facts and "Tencent" in facts[0]["text"]
            assert then.structured_content["budget"] == 300

            # Bob's memory is his own.
            bobs = await session.call_tool(
                "recall", {"tenant": "bob", "question": "Where do I work? Tencent?"})
            assert "Tencent" not in json.dumps(
                [i["text"] for i in bobs.structured_content["items"]])

            rows = await session.call_tool(
                "query",
                {"query": "?- mem_episode(Id, T, _, _, _, _, _), T = $t.",
                 "params": {"t": {"sym": "alice"}}},
            )
            assert not rows.is_error, text(rows)
            answer = rows.structured_content
            assert answer["columns"] == ["Id", "T"]
            assert sorted(r[0] for r in answer["rows"]) == ["alice/e1", "alice/e2"]
            assert answer["total"] == 2 and not answer["truncated"]

            gone = await session.call_tool("forget", {"tenant": "alice", "subject": "Tencent"})
            assert not gone.is_error, text(gone)
            assert gone.structured_content["episodes"] == 1
            after = await session.call_tool(
                "recall", {"tenant": "alice", "question": "Tencent Shenzhen"})
            assert "Tencent" not in json.dumps(after.structured_content["items"])

    run(main())


def test_bad_calls_are_tool_errors_and_the_server_goes_on(tmp_path):
    async def main():
        async with server(tmp_path / "db") as session:
            async def error(name, arguments, *needles):
                result = await session.call_tool(name, arguments)
                assert result.is_error, (name, arguments, text(result))
                for needle in needles:
                    assert needle in text(result), (needle, text(result))

            await error("remember", {"tenant": "a", "role": "user"}, "text")  # missing field
            await error("remember", {"tenant": "a", "role": "user", "text": "x", "colour": 1},
                        "colour")  # unknown field
            await error("remember", {"tenant": "a", "role": 7, "text": "x"})  # wrong type
            await error("remember", {"role": "user", "text": "x"}, "tenant")
            await error("remember", {"tenant": "a/b", "role": "user", "text": "x"}, "tenant")
            await error("remember", {"tenant": "a", "role": "user", "text": "x",
                                     "at": "last tuesday"}, "ISO 8601")
            await error("recall", {"tenant": "a", "question": "  "}, "empty")
            await error("recall", {"tenant": "a", "question": "q", "budget": -5})
            await error("recall", {"tenant": "a", "question": "q", "lang": "tlh"},
                        "not a language served")
            await error("query", {"query": "?- mem_episode(X, Y"}, "1:")
            await error("query", {"query": "?- nope(X)."}, "nope")
            await error("query", {"query": "mem_cursor(x, 1)."}, "query")  # a write
            await error("query", {"query": ":create t(a: int)."})
            await error("query", {"query": "?- mem_episode(X, $t, _, _, _, _, _).",
                                  "params": {"t": [1, [2]]}}, "$t")

            # After all of that the server still answers.
            ok = await session.call_tool(
                "remember", {"tenant": "a", "role": "user", "text": "still here"})
            assert not ok.is_error, text(ok)
            rows = await session.call_tool("query", {"query": "?- mem_episode(X, _, _, _, _, _, _)."})
            assert rows.structured_content["total"] == 1

    run(main())


def test_a_fixed_tenant_cannot_be_left(tmp_path):
    async def main():
        async with server(tmp_path / "db", "--tenant", "carol") as session:
            tools = sorted(t.name for t in (await session.list_tools()).tools)
            assert tools == ["forget", "history", "query", "recall", "remember"]
            ok = await session.call_tool("remember", {"role": "user", "text": "I live in Oslo."})
            assert ok.structured_content["episode"] == "carol/e1"
            same = await session.call_tool(
                "recall", {"tenant": "carol", "question": "Where do I live?"})
            assert not same.is_error and "Oslo" in text(same)
            other = await session.call_tool(
                "recall", {"tenant": "dave", "question": "Where do I live?"})
            assert other.is_error and "carol" in text(other)
            # `query` reads the fixed tenant's rows only: a query that
            # could read another's is refused, a scoped one answers.
            wide = await session.call_tool(
                "query", {"query": "?- mem_episode(X, _, _, _, _, _, _)."})
            assert wide.is_error and "$tenant" in text(wide)
            own = await session.call_tool(
                "query", {"query": "?- mem_episode(X, $tenant, _, _, _, _, _)."})
            assert not own.is_error, text(own)
            assert [row[0] for row in own.structured_content["rows"]] == ["carol/e1"]

    run(main())
