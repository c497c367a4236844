"""MemoryService on a real EdgeStore: remember consolidates, status updates skip re-embedding."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory.consolidation import Action
from memory.index.sparse import Bm25Encoder
from memory.models import Fact, FactStatus, Kind, Scope, Source
from memory.recall.retrieval import Retriever
from memory.service import MemoryService
from memory.store.edge import EdgeStore
from tests.store_fakes import DIM, dense

T0 = datetime(2026, 11, 3, 10, tzinfo=UTC)


class CountingEmbedder:
    """A deterministic embedder that counts the texts it embeds (the store is what is real here)."""

    name = "test:counting"
    dim = DIM

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts += texts
        return [dense(t) for t in texts]


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[tuple[MemoryService, CountingEmbedder]]:
    embedder = CountingEmbedder()
    store = await EdgeStore.open(tmp_path, embedder_name=embedder.name, dim=embedder.dim)
    sparse = Bm25Encoder()
    yield MemoryService(store, embedder, sparse, Retriever(store, embedder, sparse)), embedder
    await store.close()


def promise(value: str, msg: str) -> Fact:
    return Fact(tenant="t", session="s", kind=Kind.COMMITMENT, subject="u-li", attribute="send draft",
                value=value, asserted_by="u-li", valid_from=T0,
                sources=(Source(message_id=msg, author_id="u-li", ts=T0, quote=value),))


async def test_remember_consolidates_and_replays_are_noops(
    service: tuple[MemoryService, CountingEmbedder],
) -> None:
    memory, embedder = service
    first = await memory.remember([promise("by Friday", "m1")])
    assert first.count(Action.INSERT) == 1
    again = await memory.remember([promise("by Friday", "m1")])
    assert again.count(Action.NOOP) == 1 and len(embedder.texts) == 1
    moved = await memory.remember([promise("by Monday", "m2")])
    assert moved.count(Action.UPDATE) == 1
    [fact] = await memory.list_facts(Scope(tenant="t"))
    assert fact.value == "by Monday" and fact.version == 2 and fact.history[0].value == "by Friday"


async def test_status_change_keeps_vectors_without_re_embedding(
    service: tuple[MemoryService, CountingEmbedder],
) -> None:
    memory, embedder = service
    [fact] = (await memory.remember([promise("by Friday", "m1")])).written
    embedded = len(embedder.texts)
    done = await memory.set_status(Scope(tenant="t"), fact.id, FactStatus.DONE)
    assert done.status is FactStatus.DONE and len(embedder.texts) == embedded
    stored = await memory.get(Scope(tenant="t"), fact.id)
    assert stored is not None and stored.status is FactStatus.DONE and stored.version == fact.version
    hits = await memory.retriever.search(Scope(tenant="t"), ["send draft by Friday"], include_inactive=True)
    assert [h.fact.id for h in hits] == [fact.id]  # the vectors are still there
