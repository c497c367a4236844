"""Hybrid retrieval on a real EdgeStore with the local embedder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from memory.index.embedders import LocalEmbedder
from memory.index.sparse import Bm25Encoder
from memory.models import Fact, FactStatus, Kind, Scope, Summary
from memory.ports import RecordFilter
from memory.recall.retrieval import Retriever, index_facts, index_summaries
from memory.store.edge import EdgeStore
from tests.local_embedder import shared_local_embedder

T = "discord:guild1"
S = "thread-1"


def fact(
    subject: str, attribute: str, value: str, *, session: str = S, lang: str = "en", **kw: object
) -> Fact:
    return Fact(
        tenant=kw.pop("tenant", T),  # type: ignore[arg-type]
        session=session,
        kind=kw.pop("kind", Kind.EVENT),  # type: ignore[arg-type]
        subject=subject,
        attribute=attribute,
        value=value,
        asserted_by=subject,
        lang=lang,  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


FACTS = [
    fact("alice", "deposit", "Alice will return the hall deposit to Bob by Friday", kind=Kind.COMMITMENT),
    fact("bob", "feels", "Bob feels ignored when the meeting agenda is set without him", kind=Kind.EMOTION),
    fact("carol", "wants", "Carol wants the music to stop at ten in the evening", kind=Kind.DEMAND),
    fact("李娜", "菜地", "李娜认为那两块菜地是管委会去年口头同意给她的", lang="zh"),
    fact("张伟", "浇水", "张伟负责菜园每周二和周五的浇水排班", lang="zh"),
    fact("dave", "car", "Dave parks his car in the visitor spot every night", session="thread-2"),
]


@pytest.fixture(scope="session")
def local_embedder() -> LocalEmbedder:
    return shared_local_embedder()


@pytest.fixture
async def setup(tmp_path: Path, local_embedder: LocalEmbedder) -> AsyncIterator[tuple[EdgeStore, Retriever]]:
    store = await EdgeStore.open(tmp_path / "q", embedder_name=local_embedder.name, dim=local_embedder.dim)
    sparse = Bm25Encoder()
    await index_facts(store, local_embedder, sparse, FACTS)
    yield store, Retriever(store, local_embedder, sparse)
    await store.close()


async def test_hybrid_finds_english_and_chinese(setup: tuple[EdgeStore, Retriever]) -> None:
    _, r = setup
    scope = Scope(tenant=T)
    [top, *_] = await r.search(scope, ["When does the deposit get paid back?"])
    assert top.fact.subject == "alice"
    assert top.dense is not None and top.sparse_rank == 1
    [top, *_] = await r.search(scope, ["李娜凭什么说菜地是她的？"])
    assert top.fact.subject == "李娜"
    [top, *_] = await r.search(scope, ["谁负责浇水？"])
    assert top.fact.subject == "张伟"
    for method in ("dense", "sparse"):
        [top, *_] = await r.search(scope, ["hall deposit Friday"], method=method)  # type: ignore[arg-type]
        assert top.fact.subject == "alice"


async def test_scope_filters_sessions_and_tenants(setup: tuple[EdgeStore, Retriever]) -> None:
    _, r = setup
    found = await r.search(Scope(tenant=T, session=S), ["Where does Dave park his car?"], k=10)
    assert all(f.fact.session == S for f in found)
    other = await r.search(Scope(tenant=T, session="thread-2"), ["Where does Dave park his car?"])
    assert [f.fact.subject for f in other] == ["dave"]
    assert await r.search(Scope(tenant="discord:other"), ["Where does Dave park his car?"]) == []
    only = await r.search(Scope(tenant=T), ["deposit"], flt=RecordFilter(subjects=frozenset({"bob"})), k=10)
    assert {f.fact.subject for f in only} <= {"bob"}


async def test_superseded_excluded_unless_asked(
    setup: tuple[EdgeStore, Retriever], local_embedder: LocalEmbedder
) -> None:
    store, r = setup
    old = fact(
        "alice", "old deposit", "Alice already returned the hall deposit", status=FactStatus.SUPERSEDED
    )
    [written] = await index_facts(store, local_embedder, r.sparse, [old])
    found = await r.search(Scope(tenant=T), ["Alice returned the hall deposit"], k=10)
    assert written.id not in {f.fact.id for f in found}
    found = await r.search(Scope(tenant=T), ["Alice returned the hall deposit"], k=10, include_inactive=True)
    assert written.id in {f.fact.id for f in found}
    # a filter asking only for inactive statuses finds nothing unless inactive is included
    flt = RecordFilter(statuses=frozenset({"superseded"}))
    assert await r.search(Scope(tenant=T), ["deposit"], flt=flt) == []


async def test_recall_puts_summary_first(
    setup: tuple[EdgeStore, Retriever], local_embedder: LocalEmbedder
) -> None:
    store, r = setup
    summary = Summary(tenant=T, session=S, text="Alice and Bob disagree about the hall deposit.")
    await index_summaries(store, local_embedder, r.sparse, [summary])
    recall = await r.recall(Scope(tenant=T, session=S), ["deposit"])
    assert recall.summary is not None and recall.summary.text == summary.text
    assert recall.facts and recall.facts[0].fact.subject == "alice"
    none = await r.recall(Scope(tenant=T, session="thread-2"), ["car"])
    assert none.summary is None and none.facts


async def test_multi_query_dedupes_and_keeps_best(setup: tuple[EdgeStore, Retriever]) -> None:
    _, r = setup
    scope = Scope(tenant=T)
    merged = await r.search(
        scope, ["the hall deposit", "deposit returned by Friday", "Bob feels ignored"], k=10
    )
    ids = [f.fact.id for f in merged]
    assert len(ids) == len(set(ids))
    subjects = [f.fact.subject for f in merged]
    assert "alice" in subjects[:2] and "bob" in subjects[:2]
    [single] = await r.search(scope, ["deposit returned by Friday"], k=1)
    best = next(f for f in merged if f.fact.id == single.fact.id)
    assert best.score >= single.score - 1e-4  # batch and single encodes differ in the last bits
    assert merged == sorted(merged, key=lambda f: -f.score)
    assert await r.search(scope, ["", "   "]) == []


async def test_threshold_cuts_unrelated(setup: tuple[EdgeStore, Retriever]) -> None:
    _, r = setup
    scope = Scope(tenant=T)
    assert await r.search(scope, ["What is the capital of Peru?"]) == []
    assert await r.search(scope, ["How many legs does a spider have?"], method="dense") == []
    loose = Retriever(r.store, r.embedder, r.sparse, threshold=None)
    assert len(await loose.search(scope, ["What is the capital of Peru?"], method="dense")) == 5


async def test_index_marks_truncated(
    setup: tuple[EdgeStore, Retriever], local_embedder: LocalEmbedder
) -> None:
    store, r = setup
    long = fact("erin", "story", "Erin explained the whole history. " * 200)
    [written] = await index_facts(store, local_embedder, r.sparse, [long])
    assert written.truncated and written.id
    [hit] = await store.retrieve("facts", Scope(tenant=T), [written.id])
    assert hit.payload["truncated"] is True


async def test_feedback_expands_bm25_and_keeps_the_threshold(setup: tuple[EdgeStore, Retriever]) -> None:
    _, r = setup
    scope = Scope(tenant=T)
    one_pass = Retriever(r.store, r.embedder, r.sparse, feedback=0)
    # The top fact is the same with and without the second BM25 pass.
    [top, *_] = await r.search(scope, ["When does the deposit get paid back?"])
    [plain, *_] = await one_pass.search(scope, ["When does the deposit get paid back?"])
    assert top.fact.id == plain.fact.id and top.sparse_rank == 1
    # Feedback terms never let an off-topic question through the dense threshold.
    assert await r.search(scope, ["What is the capital of Peru?"]) == []
    with pytest.raises(ValueError):
        Retriever(r.store, r.embedder, r.sparse, feedback=-1)
    assert "feedback=3" in repr(r)
