"""``heyan memory reindex`` on a Qdrant server (the HTTP stand-in): the next generation is filled,
marked complete, switched in by its alias and the old one dropped — to an embedder of another
dimension, killed at each step and re-run, and from a legacy collection made before aliases."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import AsyncQdrantClient, models

import adapters.maintenance.rebuild
from adapters.maintenance.rebuild import Records
from adapters.maintenance.reindex import reindex
from adapters.runtime.composition import open_store
from memory.errors import EmbedderMismatchError
from memory.ports import DENSE, SPARSE
from memory.store.server import ServerAdmin, ServerStore
from tests.qdrant_standin import QdrantStandIn
from tests.rebuild_helpers import (
    Interrupt,
    check_holds,
    fail_on,
    memories,
    new_embedder,
    old_embedder,
    quiet,
    seed,
    server_settings,
)

# qdrant-client checks the server version in a background thread, which may outlive a short test.
pytestmark = pytest.mark.filterwarnings("ignore:Failed to obtain server version:UserWarning")


@pytest.fixture
async def url() -> AsyncIterator[str]:
    async with QdrantStandIn() as address:
        yield address


async def seeded(url: str, data: Path) -> Records:
    store = await open_store(server_settings(data, url), old_embedder())
    try:
        return await seed(store, old_embedder(), *memories())
    finally:
        await store.close()


async def holds(url: str, data: Path, expected: Records, embedder: Any) -> None:
    store = await open_store(server_settings(data, url), embedder)
    try:
        await check_holds(store, expected, embedder)
    finally:
        await store.close()


async def layout(url: str) -> tuple[dict[str, str], set[str]]:
    """The aliases (alias → collection) and the collections on the server."""
    client = AsyncQdrantClient(url=url)
    try:
        aliases = {a.alias_name: a.collection_name for a in (await client.get_aliases()).aliases}
        return aliases, {c.name for c in (await client.get_collections()).collections}
    finally:
        await client.close()


def generation(n: int) -> tuple[dict[str, str], set[str]]:
    names = {f"heyan_facts_v{n}", f"heyan_summaries_v{n}"}
    return {"heyan_facts": f"heyan_facts_v{n}", "heyan_summaries": f"heyan_summaries_v{n}"}, names


async def test_reindex_to_another_dimension(url: str, tmp_path: Path) -> None:
    expected = await seeded(url, tmp_path)
    assert await layout(url) == generation(1)
    with pytest.raises(EmbedderMismatchError, match="heyan_facts_v1"):
        await open_store(server_settings(tmp_path, url), new_embedder())
    outcome = await reindex(server_settings(tmp_path, url), console=quiet(), embedder=new_embedder())
    assert outcome.written == outcome.total == len(expected) == 156
    assert await layout(url) == generation(2)
    await holds(url, tmp_path, expected, new_embedder())
    client = AsyncQdrantClient(url=url)
    try:
        info = await client.get_collection("heyan_facts_v2")
    finally:
        await client.close()
    assert info.config.metadata == {"heyan_embedder": "test-new", "heyan_dim": 48, "heyan_complete": True}


def _marking_complete(admin: ServerAdmin, name: str, complete: bool) -> bool:
    return complete


def _old_generation(admin: ServerAdmin, name: str) -> bool:
    return name.endswith("_v1")


@pytest.mark.parametrize(
    ("target", "name", "when", "written"),
    [
        (adapters.maintenance.rebuild, "index_facts", None, 156 - 64),
        (ServerAdmin, "set_complete", _marking_complete, 0),
        (ServerAdmin, "switch", None, 0),
    ],
    ids=["mid-copy", "before-the-marker", "before-the-switch"],
)
async def test_killed_before_the_switch_then_rerun(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: Any, name: str, when: Any, written: int
) -> None:
    expected = await seeded(url, tmp_path)
    call = 2 if name == "index_facts" else 1
    monkeypatch.setattr(target, name, fail_on(call, getattr(target, name), when or (lambda *a, **k: True)))
    with pytest.raises(Interrupt):
        await reindex(server_settings(tmp_path, url), console=quiet(), embedder=new_embedder())
    monkeypatch.undo()
    aliases, collections = await layout(url)
    assert aliases == generation(1)[0] and collections == generation(1)[1] | generation(2)[1]
    await holds(url, tmp_path, expected, old_embedder())  # the bots keep running on the live generation
    embedder = new_embedder()
    outcome = await reindex(server_settings(tmp_path, url), console=quiet(), embedder=embedder)
    assert outcome.written == embedder.texts == written  # resumed, or only marked and switched
    assert await layout(url) == generation(2)
    await holds(url, tmp_path, expected, new_embedder())


async def test_killed_after_the_switch_then_rerun(url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = await seeded(url, tmp_path)
    monkeypatch.setattr(ServerAdmin, "drop", fail_on(1, ServerAdmin.drop, _old_generation))
    with pytest.raises(Interrupt):
        await reindex(server_settings(tmp_path, url), console=quiet(), embedder=new_embedder())
    monkeypatch.undo()
    await holds(url, tmp_path, expected, new_embedder())  # switched: a normal start is on the new one
    embedder = new_embedder()
    outcome = await reindex(server_settings(tmp_path, url), console=quiet(), embedder=embedder)
    assert outcome.written == embedder.texts == 0 and "dropped 2 old" in outcome.note
    assert await layout(url) == generation(2)


async def make_legacy(url: str) -> None:
    """The collections as the store made them before aliases: real collections named ``heyan_<layer>``."""
    client = AsyncQdrantClient(url=url)
    try:
        for layer in ("facts", "summaries"):
            await client.create_collection(
                f"heyan_{layer}",
                vectors_config={DENSE: models.VectorParams(size=32, distance=models.Distance.COSINE)},
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
                metadata={"heyan_embedder": "test-old", "heyan_dim": 32},
            )
    finally:
        await client.close()


async def test_legacy_collections_are_opened_then_reindexed_into_aliases(url: str, tmp_path: Path) -> None:
    await make_legacy(url)
    expected = await seeded(url, tmp_path)  # opened as they are: no alias is made
    assert await layout(url) == ({}, {"heyan_facts", "heyan_summaries"})
    outcome = await reindex(server_settings(tmp_path, url), console=quiet(), embedder=new_embedder())
    assert outcome.written == len(expected)
    assert await layout(url) == generation(1)
    await holds(url, tmp_path, expected, new_embedder())


async def test_legacy_switch_killed_between_delete_and_alias(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    await make_legacy(url)
    expected = await seeded(url, tmp_path)
    real = AsyncQdrantClient.update_collection_aliases
    monkeypatch.setattr(AsyncQdrantClient, "update_collection_aliases", fail_on(1, real))
    with pytest.raises(Interrupt):
        await reindex(server_settings(tmp_path, url), console=quiet(), embedder=new_embedder())
    monkeypatch.undo()
    assert await layout(url) == ({}, generation(1)[1])  # the legacy collections are gone, no alias yet
    await holds(url, tmp_path, expected, new_embedder())  # a normal start makes the complete ones live
    assert await layout(url) == generation(1)


async def test_local_mode_uses_the_alias_scheme_too() -> None:
    store = await ServerStore.open(location=":memory:", prefix="t", embedder_name="test-old", dim=32)
    try:
        assert store.collections == {"facts": "t_facts", "summaries": "t_summaries"}
        aliases = await store._client.get_aliases()
        assert {(a.alias_name, a.collection_name) for a in aliases.aliases} == {
            ("t_facts", "t_facts_v1"), ("t_summaries", "t_summaries_v1")
        }
    finally:
        await store.close()
