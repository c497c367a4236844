"""``heyan memory migrate``: the embedded store → a Qdrant server (the HTTP stand-in) → the embedded
store round-trips every record; an interrupted run is finished by running it again, after which a
run is a no-op; a target holding data from elsewhere is refused unless ``--merge``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import AsyncQdrantClient
from typer.testing import CliRunner

import adapters.maintenance.rebuild
import memory.store.files
from adapters.cli.app import app
from adapters.maintenance.migrate import counts_table, migrate
from adapters.maintenance.rebuild import RebuildError, Records, merge
from adapters.runtime.composition import open_store
from memory.errors import StoreError
from memory.models import utcnow
from memory.store.files import staging_path
from tests.qdrant_standin import QdrantStandIn
from tests.rebuild_helpers import (
    TENANTS,
    Interrupt,
    check_holds,
    edge_settings,
    fail_on,
    memories,
    new_embedder,
    old_embedder,
    quiet,
    seed,
    server_settings,
)

pytestmark = pytest.mark.filterwarnings("ignore:Failed to obtain server version:UserWarning")

EVERY = {"facts": dict.fromkeys(TENANTS, 50), "summaries": dict.fromkeys(TENANTS, 2)}


@pytest.fixture
async def url() -> AsyncIterator[str]:
    async with QdrantStandIn() as address:
        yield address


async def seed_edge(data: Path, tag: str = "", per_tenant: int = 50) -> Records:
    store = await open_store(edge_settings(data), old_embedder())
    try:
        return await seed(store, old_embedder(), *memories(per_tenant, tag))
    finally:
        await store.close()


async def seed_server(url: str, data: Path, tag: str) -> Records:
    store = await open_store(server_settings(data, url), new_embedder())
    try:
        return await seed(store, new_embedder(), *memories(2, tag))
    finally:
        await store.close()


async def holds(settings: Any, expected: Records, embedder: Any) -> None:
    store = await open_store(settings, embedder)
    try:
        await check_holds(store, expected, embedder)
    finally:
        await store.close()


async def collections(url: str) -> set[str]:
    client = AsyncQdrantClient(url=url)
    try:
        return {c.name for c in (await client.get_collections()).collections}
    finally:
        await client.close()


async def to_server(data: Path, url: str, merge_target: bool = False, embedder: Any = None) -> Any:
    return await migrate(server_settings(data, url, "auto"), to="server", merge_target=merge_target,
                         console=quiet(), embedder=embedder or new_embedder())  # fmt: skip


async def to_edge(data: Path, url: str, merge_target: bool = False, embedder: Any = None) -> Any:
    return await migrate(server_settings(data, url, "auto"), to="edge", merge_target=merge_target,
                         console=quiet(), embedder=embedder or old_embedder())  # fmt: skip


async def test_round_trip_edge_server_edge(url: str, tmp_path: Path) -> None:
    expected = await seed_edge(tmp_path / "one")
    there = await to_server(tmp_path / "one", url)
    assert there.written == there.total == 156 and there.counts == EVERY
    shown = quiet()
    shown.print(counts_table(there, "records"))
    assert "slack:T3" in shown.file.getvalue() and "summaries" in shown.file.getvalue()  # type: ignore[attr-defined]
    await holds(server_settings(tmp_path, url), expected, new_embedder())
    await holds(edge_settings(tmp_path / "one"), expected, old_embedder())  # the source, untouched
    back = await to_edge(tmp_path / "two", url)
    assert back.written == 156 and back.counts == EVERY
    await holds(edge_settings(tmp_path / "two"), expected, old_embedder())
    assert not staging_path(tmp_path / "two" / "qdrant").exists()


async def test_killed_migration_is_finished_by_a_rerun_then_a_rerun_is_a_noop(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = await seed_edge(tmp_path)
    monkeypatch.setattr(adapters.maintenance.rebuild, "index_facts", fail_on(2, adapters.maintenance.rebuild.index_facts))
    with pytest.raises(Interrupt):
        await to_server(tmp_path, url)
    monkeypatch.undo()
    # A bot pointed at the server now must not start on an empty store beside the half-filled copy.
    with pytest.raises(StoreError, match="unfinished heyan_facts_v1"):
        await open_store(server_settings(tmp_path, url), new_embedder())
    embedder = new_embedder()
    done = await to_server(tmp_path, url, embedder=embedder)
    assert done.written == embedder.texts == 156 - 64 and done.counts == EVERY
    embedder = new_embedder()
    again = await to_server(tmp_path, url, embedder=embedder)
    assert again.written == embedder.texts == 0 and "nothing to do" in again.note and again.counts == EVERY
    assert await collections(url) == {"heyan_facts_v1", "heyan_summaries_v1"}
    await holds(server_settings(tmp_path, url), expected, new_embedder())


async def test_a_newer_source_record_is_carried_over_on_a_rerun(url: str, tmp_path: Path) -> None:
    expected = await seed_edge(tmp_path, per_tenant=3)
    await to_server(tmp_path, url)
    store = await open_store(edge_settings(tmp_path), old_embedder())
    try:
        changed = next(iter(expected.facts.values()))
        changed = changed.model_copy(update={"value": "moved to Monday", "version": 2, "updated_at": utcnow()})
        expected = await seed(store, old_embedder(), [changed], [])
    finally:
        await store.close()
    outcome = await to_server(tmp_path, url)
    assert outcome.written == len(expected)  # a change is a new migration: a new generation, built whole
    assert await collections(url) == {"heyan_facts_v2", "heyan_summaries_v2"}
    await holds(server_settings(tmp_path, url), expected, new_embedder())


async def test_server_with_data_from_elsewhere_needs_merge(url: str, tmp_path: Path) -> None:
    ours = await seed_edge(tmp_path / "edge", per_tenant=3)
    theirs = await seed_server(url, tmp_path, "server-")
    with pytest.raises(RebuildError, match=r"already holds 6 facts and 6 summaries .* --merge"):
        await to_server(tmp_path / "edge", url)
    await holds(server_settings(tmp_path, url), theirs, new_embedder())  # refused: nothing changed
    outcome = await to_server(tmp_path / "edge", url, merge_target=True)
    both = merge(ours, theirs)[0]  # the summaries share ids (same sessions): the newer ones, theirs, win
    assert outcome.written == outcome.total == len(both) == 9 + 6 + 6
    await holds(server_settings(tmp_path, url), both, new_embedder())


async def test_edge_with_data_from_elsewhere_needs_merge(url: str, tmp_path: Path) -> None:
    theirs = await seed_server(url, tmp_path, "server-")
    ours = await seed_edge(tmp_path / "edge", per_tenant=3)
    with pytest.raises(RebuildError, match="not from the Qdrant server"):
        await to_edge(tmp_path / "edge", url)
    outcome = await to_edge(tmp_path / "edge", url, merge_target=True)
    both = merge(theirs, ours)[0]
    assert outcome.total == len(both) == 9 + 6 + 6
    await holds(edge_settings(tmp_path / "edge"), both, old_embedder())


async def test_first_copy_to_edge_killed_before_its_rename_is_finished_by_a_start(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = await seed_server(url, tmp_path, "server-")
    real = memory.store.files._rename
    monkeypatch.setattr(memory.store.files, "_rename", fail_on(1, real))
    with pytest.raises(Interrupt):
        await to_edge(tmp_path / "edge", url)
    monkeypatch.undo()
    assert not (tmp_path / "edge" / "qdrant").exists()
    await holds(edge_settings(tmp_path / "edge"), theirs, old_embedder())


def test_cli_refuses_in_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["memory", "migrate", "--to", "mongodb"], env={"HEYAN_DATA_DIR": str(tmp_path)})
    assert result.exit_code == 2 and "--to must be server or edge" in result.output
    env = {"HEYAN_DATA_DIR": str(tmp_path), "HEYAN_QDRANT_URL": ""}
    result = runner.invoke(app, ["memory", "migrate", "--to", "server"], env=env)
    assert result.exit_code == 2 and "HEYAN_QDRANT_URL" in result.output and "Traceback" not in result.output
