"""The speed seams of recall, by behaviour: the Edge store optimizes after bulk writes and on a
schedule, the retriever opens only the facts it returns, the query cache skips the model, and
documents are embedded off the event loop."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memory.index.embedders import DOCUMENT_CHUNK, LocalEmbedder, QueryVectors
from memory.index.sparse import Bm25Encoder
from memory.models import Fact, Kind, Scope
from memory.ports import Hit, MemoryStore, RecordFilter, VectorQuery
from memory.recall.retrieval import IMPORTANCE_POOL, Retriever, index_facts
from memory.store.edge import EdgeStore
from tests.local_embedder import shared_local_embedder
from tests.store_fakes import DIM, EMBEDDER, point

T = Scope(tenant="discord:speed")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def _write(store: EdgeStore, n: int) -> None:
    await store.upsert("facts", T, [point(str(uuid.uuid4()), {"tenant": T.tenant}, f"memory {i}")
                                    for i in range(n)])


async def test_edge_optimizes_after_a_bulk_write_and_on_schedule(tmp_path: Path) -> None:
    clock = Clock()
    store = await EdgeStore.open(tmp_path / "q", embedder_name=EMBEDDER, dim=DIM, optimize_after=50,
                                 optimize_every=600.0, clock=clock)
    try:
        await store.optimized_now()
        assert store.optimizations == 1  # once at open
        await _write(store, 20)
        await store.optimized_now()
        assert store.optimizations == 1  # a small write: nothing yet
        await _write(store, 40)  # 60 points since: a bulk write
        await store.optimized_now()
        assert store.optimizations == 2
        await _write(store, 1)
        await store.optimized_now()
        assert store.optimizations == 2
        clock.now += 601  # the schedule: any write once the interval passed
        await _write(store, 1)
        await store.optimized_now()
        assert store.optimizations == 3
        assert await store.count("facts", T) == 62
    finally:
        await store.close()


async def test_close_waits_for_a_background_optimization(tmp_path: Path) -> None:
    store = await EdgeStore.open(tmp_path / "q", embedder_name=EMBEDDER, dim=DIM, optimize_after=10)
    await _write(store, 10)
    task = store._optimizer.task
    assert task is not None
    await store.close()
    assert task.done()


class CountingStore:
    """A MemoryStore wrapper that records how many payloads it handed out."""

    def __init__(self, inner: MemoryStore) -> None:
        self.inner = inner
        self.name = inner.name
        self.retrieved: list[int] = []
        self.full_payload_hits = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def search(self, layer: Any, scope: Scope, flt: RecordFilter, queries: Sequence[VectorQuery],
                     limit: int, *, with_payload: bool | Sequence[str] = True) -> list[list[Hit]]:
        lists = await self.inner.search(layer, scope, flt, queries, limit, with_payload=with_payload)
        self.full_payload_hits += sum(len(lst) for lst in lists) if with_payload is True else 0
        return lists

    async def retrieve(self, layer: Any, scope: Scope, ids: Sequence[str]) -> list[Hit]:
        self.retrieved.append(len(ids))
        return await self.inner.retrieve(layer, scope, ids)


async def test_retriever_opens_only_feedback_and_returned_facts(tmp_path: Path) -> None:
    embedder = shared_local_embedder()
    inner = await EdgeStore.open(tmp_path / "q", embedder_name=embedder.name, dim=embedder.dim)
    try:
        sparse = Bm25Encoder()
        facts = [Fact(tenant=T.tenant, kind=Kind.EVENT, subject=f"p{i}", attribute="note", asserted_by=f"p{i}",
                      value=f"Person {i} brought item number {i} to the shared garden shed") for i in range(40)]
        await index_facts(inner, embedder, sparse, facts)
        store = CountingStore(inner)
        r = Retriever(store, embedder, sparse, k=5)  # type: ignore[arg-type]
        found = await r.search(T, ["Who brought item number 7 to the shed?"])
        assert found[0].fact.subject == "p7" and len(found) == 5
        assert store.full_payload_hits == 0  # candidates come back with ids, scores and clear fields only
        # the feedback facts, then those the importance weight may reorder (IMPORTANCE_POOL × k)
        assert sum(store.retrieved) <= r.feedback + IMPORTANCE_POOL * 5
        store.retrieved.clear()
        await r.tuned(importance_weight=0.0).search(T, ["Who brought item number 7 to the shed?"])
        assert sum(store.retrieved) <= r.feedback + 5  # without it: the feedback facts, then the returned ones
    finally:
        await inner.close()


class CountingEmbedder:
    name = "counting"
    dim = 3

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [[1.0, 0.0, 0.0] for _ in texts]


async def test_query_cache_skips_the_model_and_stays_bounded() -> None:
    inner = CountingEmbedder()
    cache = QueryVectors(inner, size=2)
    await cache.embed(["a", "b"])
    await cache.embed(["a", "b", "a"])
    assert inner.calls == [["a", "b"]] and (cache.hits, cache.misses) == (3, 2)
    await cache.embed(["c"])  # evicts "b": "a" was used after it
    await cache.embed(["a"])
    assert inner.calls == [["a", "b"], ["c"]]
    await cache.embed(["b"])
    assert inner.calls[-1] == ["b"] and len(cache._cache) == 2
    off = QueryVectors(inner, size=0)
    await off.embed(["z"])
    await off.embed(["z"])
    assert inner.calls[-2:] == [["z"], ["z"]]


class SlowModel:
    """Stands in for USE: a blocking encode, as the real one is, and a record of the thread it ran on."""

    def __init__(self) -> None:
        self.threads: set[int] = set()

    def encode(self, texts: list[str]) -> list[list[float]]:
        self.threads.add(threading.get_ident())
        time.sleep(0.01 * len(texts))
        return [[1.0] + [0.0] * 511 for _ in texts]


async def test_documents_are_embedded_off_the_event_loop() -> None:
    emb = LocalEmbedder()
    model = SlowModel()
    emb._model = model
    ticks = 0
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    before = ticks
    await emb.embed(["a fact", "another fact"])  # a small write: the loop still runs meanwhile
    assert ticks > before
    assert threading.get_ident() not in model.threads
    # queries stay inline when short and the model is idle (a thread hop costs more than they do)
    model.threads.clear()
    await emb.embed_queries(["what happened?"])
    assert model.threads == {threading.get_ident()}
    # a large write is cut into chunks: the lock is free between them
    vectors = await emb.embed([f"fact {i}" for i in range(DOCUMENT_CHUNK + 3)])
    assert len(vectors) == DOCUMENT_CHUNK + 3
    stop.set()
    await task


async def test_recall_cache_reuses_answers_until_the_tenant_is_written(tmp_path: Path) -> None:
    from memory.recall.cache import RecallCache

    embedder = shared_local_embedder()
    store = await EdgeStore.open(tmp_path / "q", embedder_name=embedder.name, dim=embedder.dim)
    try:
        sparse = Bm25Encoder()
        first = Fact(tenant=T.tenant, session="s1", kind=Kind.COMMITMENT, subject="alice", attribute="deposit",
                     asserted_by="alice", value="Alice will return the hall deposit by Friday")
        await index_facts(store, embedder, sparse, [first])
        now = [0.0]
        cache = RecallCache(store, ttl=300, clock=lambda: now[0])
        r = Retriever(store, embedder, sparse, recall_cache=cache)
        scope = Scope(tenant=T.tenant, session="s1")
        a = await r.recall(scope, ["When does the deposit come back?"])
        b = await r.recall(scope, ["When does the deposit come back?"])
        assert b is a and (cache.hits, cache.misses) == (1, 1)
        other = Scope(tenant="discord:other", session="s1")
        assert (await r.recall(other, ["When does the deposit come back?"])).facts == []  # keyed by scope
        # a write to the tenant: the next recall reads the store again and sees it
        second = first.model_copy(update={"attribute": "keys", "value": "Alice will return the hall deposit and keys"})
        await index_facts(store, embedder, sparse, [second])
        c = await r.recall(scope, ["When does the deposit come back?"])
        assert c is not a and len(c.facts) == 2 and cache.stale == 1
        now[0] += 301  # aged out
        assert await r.recall(scope, ["When does the deposit come back?"]) is not c
        assert cache.stale == 2
    finally:
        await store.close()


def test_recall_cache_is_off_for_a_store_that_does_not_see_every_write() -> None:
    from memory.recall.cache import RecallCache

    class Server:
        name = "server"

    assert RecallCache.for_store(Server()) is None
