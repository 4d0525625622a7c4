"""chronolog.Memory: the read side's scenarios, threads, files, errors."""

import datetime as dt
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

import chronolog

UTC = dt.timezone.utc


def memory(**kwargs):
    return chronolog.Memory(embedder="hashing", background=False, **kwargs)


def facts(context):
    return [item.text for item in context.items if item.kind == "fact"]


@pytest.fixture
def job_change():
    with memory() as mem:
        mem.add("u1", "user", "I work at Tencent in Shenzhen.", at="2021-03-01")
        mem.add("u1", "user", "The weather in Shenzhen is humid.", at=dt.date(2021, 5, 1))
        mem.add("u1", "user", "Big news: I just joined Moonshot!",
                at=dt.datetime(2024, 6, 1, tzinfo=UTC))
        report = mem.consolidate()
        assert report["episodes"] == 3 and report["facts"] == 2
        yield mem


def test_where_do_i_work_now_and_before_the_change(job_change):
    now = job_change.search("u1", "Where do I work?")
    assert not now.abstain and now.reason is None
    first = facts(now)
    assert "works at Moonshot" in first[0] and "replaced Tencent" in first[0]
    assert not any("works at Tencent" in f for f in first)
    assert "Big news: I just joined Moonshot!" in now.text
    assert now.tokens <= now.budget == 2000

    then = job_change.search("u1", "Where do I work?", as_of=dt.date(2022, 1, 1))
    assert "works at Tencent" in facts(then)[0]
    assert "Moonshot" not in then.text
    assert then.as_of == dt.datetime(2022, 1, 1, tzinfo=UTC)

    in_2022 = job_change.search("u1", "Where did I work in 2022?")
    assert "Tencent" in facts(in_2022)[0]
    assert in_2022.as_of_because == "in 2022"


def test_reranking_is_a_per_call_choice_that_keeps_the_facts(job_change):
    fused_only = job_change.search("u1", "Where do I work?", rerank=0)
    default = job_change.search("u1", "Where do I work?")
    assert facts(fused_only) == facts(default)
    assert "works at Moonshot" in facts(fused_only)[0]
    with pytest.raises(OverflowError):
        job_change.search("u1", "Where do I work?", rerank=-1)


def test_one_retrieval_at_several_budgets_is_what_separate_searches_give(job_change):
    budgets = [30, 200, 2000]
    together = job_change.search_at_budgets("u1", "Where do I work?", budgets,
                                            as_of=dt.date(2025, 1, 1))
    assert [c.budget for c in together] == budgets
    for context, budget in zip(together, budgets):
        alone = job_change.search("u1", "Where do I work?", as_of=dt.date(2025, 1, 1),
                                  budget=budget)
        assert context.text == alone.text and context.tokens == alone.tokens <= budget
    assert len(together[0].items) <= len(together[-1].items)
    with pytest.raises(chronolog.Error, match="tenant"):
        job_change.search_at_budgets("", "Where do I work?", [100])


def test_when_did_i_start_is_answered_with_the_interval(job_change):
    context = job_change.search("u1", "When did I start at Moonshot?")
    item = context.items[0]
    assert item.kind == "fact"
    assert item.valid_from == dt.datetime(2024, 6, 1, tzinfo=UTC)
    assert item.valid_to is None
    assert item.supersedes == "Tencent"
    assert item.sources == ["u1/e3"]
    as_json = context.to_json()
    assert as_json["items"][0]["valid_from"] == "2024-06-01"
    assert str(context) == context.text


def test_where_did_i_live_before_berlin():
    with memory() as mem:
        mem.add("u1", "user", "I live in Paris these days.", at="2018-09-01")
        mem.add("u1", "user", "I moved to Berlin last month.", at="2021-04-10")
        mem.consolidate()
        context = mem.search("u1", "Where did I live before Berlin?")
        first = facts(context)
        assert "lives in Paris" in first[0]
        assert not any("Berlin" in f for f in first)


def test_a_corrected_rumour_is_not_current_but_was_believed():
    with memory() as mem:
        mem.add("u1", "user", "I work at Tencent.", at="2021-03-01")
        mem.add("u1", "user", "I joined OpenAI last week.", at="2024-03-01")
        mem.consolidate()
        before = dt.datetime.now(UTC)
        time.sleep(0.01)
        mem.add("u1", "user", "Actually I never joined OpenAI, that was a rumour.",
                at="2024-04-01")
        mem.consolidate()
        now = facts(mem.search("u1", "Where do I work?"))
        assert "works at Tencent" in now[0] and not any("OpenAI" in f for f in now)
        then = mem.search("u1", "Where do I work?", known_at=before)
        assert "works at OpenAI" in facts(then)[0]
        assert "rumour" not in then.text


def test_something_never_said_abstains_and_something_said_does_not(job_change):
    never = job_change.search("u1", "What is the name of my pet iguana?")
    assert never.abstain and never.items == [] and never.reason
    said = job_change.search("u1", "How is the weather in Shenzhen?")
    assert not said.abstain and "humid" in said.text


def test_the_budget_holds_and_tenants_stay_apart(job_change):
    small = job_change.search("u1", "Where do I work?", budget=60)
    assert small.tokens <= 60
    job_change.add("u2", "user", "I work at Apple in Cupertino.", at="2022-01-01")
    job_change.consolidate()
    other = job_change.search("u2", "Where do I work? Tencent Moonshot Shenzhen")
    assert "Tencent" not in other.text and "Moonshot" not in other.text
    assert all(i.id.startswith("u2/") for i in other.items if i.kind == "episode")


def test_history_facts_and_forget(job_change):
    history = job_change.history("u1", "user")
    believed = [v for v in history if v.predicate == "works_at" and v.known_to is None]
    assert [v.object for v in believed] == ["Tencent", "Moonshot"]
    assert believed[0].valid_to == believed[1].valid_from == dt.datetime(2024, 6, 1, tzinfo=UTC)
    assert believed[1].supersedes == "Tencent" and believed[1].source == "u1/e3"
    assert [f.object for f in job_change.facts("u1", as_of="2022-01-01")] == ["Tencent"]

    report = job_change.forget("u1", "Tencent")
    assert report["episodes"] == 1 and report["facts"] >= 1
    assert "Tencent" not in job_change.search("u1", "Tencent Shenzhen").text


def test_add_many_takes_dicts_and_tuples_all_or_nothing():
    with memory() as mem:
        ids = mem.add_many("t", [
            {"role": "user", "text": "I live in Oslo.", "at": "2020-01-01", "session": "s1"},
            ("assistant", "Noted."),
            ("user", "I love skiing.", dt.date(2020, 1, 2)),
        ])
        assert ids == ["t/e1", "t/e2", "t/e3"]
        with pytest.raises(TypeError, match="message 1"):
            mem.add_many("t", [("user", "fine"), ("user",)])
        with pytest.raises(chronolog.Error, match="not a time"):
            mem.add_many("t", [{"role": "user", "text": "x", "at": "someday"}])
        rows = mem.query("?- mem_episode(Id, $t, S, R, _, At, _).", {"t": chronolog.Sym("t")})
        assert sorted(r["Id"] for r in rows) == ["t/e1", "t/e2", "t/e3"]
        assert {r["Id"]: r["S"] for r in rows}["t/e1"] == "s1"


def test_bad_input_raises_and_changes_nothing():
    with memory() as mem:
        with pytest.raises(chronolog.Error, match="tenant"):
            mem.add("a/b", "user", "x")
        with pytest.raises(chronolog.Error, match="role"):
            mem.add("a", "", "x")
        with pytest.raises(chronolog.Error, match="not a time"):
            mem.add("a", "user", "x", at="last tuesday")
        with pytest.raises(TypeError):
            mem.add("a", "user", "x", at=3.5)
        with pytest.raises(chronolog.QueryError, match="1:"):
            mem.query("?- mem_episode(X")
        with pytest.raises(ValueError, match="embedder"):
            chronolog.Memory(embedder="word2vec")
        assert mem.query("?- mem_episode(X, _, _, _, _, _, _).") == []


def test_threads_share_a_memory():
    with chronolog.Memory(embedder="hashing") as mem:  # background consolidation on
        def writer(n):
            return [mem.add(f"t{n % 2}", "user", f"Message {i} from writer {n}: I like tea.")
                    for i in range(25)]

        def reader(_):
            return [mem.search("t0", "Do I like tea?").abstain for _ in range(10)]

        with ThreadPoolExecutor(max_workers=6) as pool:
            writes = list(pool.map(writer, range(4)))
            list(pool.map(reader, range(2)))
        ids = [i for batch in writes for i in batch]
        assert len(ids) == len(set(ids)) == 100
        mem.consolidate()
        rows = mem.query("?- mem_episode(Id, T, _, _, _, _, _).")
        assert len(rows) == 100
        assert sum(1 for r in rows if r["T"] == "t0") == 50
        assert not mem.search("t0", "Do I like tea?").abstain


def test_a_memory_reopens_from_its_path(tmp_path):
    path = tmp_path / "mem"
    with chronolog.Memory(path, embedder="hashing", background=False) as mem:
        mem.add("u1", "user", "I work at Tencent.", at="2021-03-01")
        mem.consolidate()
        mem.add("u1", "user", "I just joined Moonshot!", at="2024-06-01")
    with pytest.raises(chronolog.Error, match="closed"):
        mem.search("u1", "Where do I work?")
    with chronolog.Memory(str(path), embedder="hashing", background=False) as mem:
        assert mem.add("u1", "user", "Still at Moonshot.") == "u1/e3"
        assert mem.consolidate()["episodes"] == 2
        assert "works at Moonshot" in facts(mem.search("u1", "Where do I work?"))[0]


def test_search_options_are_the_c_abis_and_mcps(job_change):
    # `lang` pins the question's language; one not served is refused by name.
    pinned = job_change.search("u1", "Where do I work?", lang="en")
    assert "works at Moonshot" in facts(pinned)[0]
    with pytest.raises(chronolog.Error, match="not a language served"):
        job_change.search("u1", "Where do I work?", lang="tlh")


def test_a_pinned_tenant_and_a_message_given_its_language_are_read_in_it(tmp_path):
    path = tmp_path / "mem"
    # Detection reads these short German messages as English and finds
    # nothing in them; read in German, each is a taste.
    with chronolog.Memory(path, embedder="hashing", background=False) as mem:
        assert mem.pinned_language("jana") is None
        mem.pin_language("jana", "de")
        mem.add("jana", "user", "Ich mag Jazz.", at="2024-01-01")
        mem.add("otto", "user", "Ich hasse Golf.", at="2024-01-01", lang="de")
        mem.add_many("paul", [{"role": "user", "text": "Ich mag Jazz.", "at": "2024-01-01",
                               "lang": "de"}])
        mem.add("anna", "user", "Ich mag Jazz.", at="2024-01-01")
        with pytest.raises(chronolog.Error, match="not a language served"):
            mem.add("otto", "user", "Ich mag Jazz.", lang="xx")
        with pytest.raises(chronolog.Error, match="not a language served"):
            mem.pin_language("otto", "fr")
        assert mem.consolidate()["episodes"] == 4
        assert [f.object for f in mem.history("jana", "user")] == ["Jazz"]
        assert [f.object for f in mem.history("otto", "user")] == ["Golf"]
        assert [f.object for f in mem.history("paul", "user")] == ["Jazz"]
        assert mem.history("anna", "user") == []
        assert "Jazz" in " ".join(facts(mem.search("jana", "Was mag ich?")))
    with chronolog.Memory(path, embedder="hashing", background=False) as mem:
        assert mem.pinned_language("jana") == "de"
        mem.pin_language("jana", None)
        assert mem.pinned_language("jana") is None


def test_the_default_embedder_is_the_best_model_installed():
    import os
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with chronolog.Memory(background=False) as mem:
            name = mem.embedder_name
    stand_in = [w for w in caught if issubclass(w.category, RuntimeWarning)]
    if os.environ.get("CHRONOLOG_REQUIRE_MODEL"):
        # Every model installed (CI): the strongest ranker, and no warning.
        assert name == "bge-small-en" and not stand_in
    elif name == "hashing-384":
        assert stand_in and "no sentence model is installed" in str(stand_in[0].message)
    else:
        assert name in ("bge-small-en", "all-MiniLM-L6-v2") and not stand_in
    with pytest.raises(ValueError, match="embedder"):
        chronolog.Memory(embedder="minilm-l12")
